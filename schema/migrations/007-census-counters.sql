-- ramwatch store, schema 7: every kernel counter a census reads from status.
-- Until schema 6 a stored census kept only RssAnon + VmSwap, VmRSS and VmHWM,
-- so a report of a stored census could not say what it saw of swap, of the
-- parts of resident memory or of locked and huge pages, though the census
-- had read them.  Censuses from before schema 7 have NULL here: the counters
-- were read but not kept, and a reader says unknown, not 0.

ALTER TABLE censuses ADD COLUMN counter_swap INTEGER;       -- VmSwap
ALTER TABLE censuses ADD COLUMN counter_rss_anon INTEGER;   -- RssAnon
ALTER TABLE censuses ADD COLUMN counter_rss_file INTEGER;   -- RssFile
ALTER TABLE censuses ADD COLUMN counter_rss_shmem INTEGER;  -- RssShmem
ALTER TABLE censuses ADD COLUMN counter_locked INTEGER;     -- VmLck
ALTER TABLE censuses ADD COLUMN counter_hugetlb INTEGER;    -- HugetlbPages
