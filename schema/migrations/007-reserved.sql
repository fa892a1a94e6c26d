-- ramwatch store, schema 7: reserved for the census counters (swap,
-- rss_anon, rss_file, rss_shmem, locked, hugetlb of the census table),
-- which another change brings; this file stands in for it until then and
-- is replaced by it.
SELECT 1;
