-- ramwatch store, schema 11: the whole of a census's totals and cost.
-- Until schema 10 a stored census kept its totals of private, resident,
-- pss, swap, size and regions, but not of locked memory, huge pages and
-- the private memory known by a name or by evidence, which its classes
-- kept: a report of a stored census said its total's share confirmed was
-- 0 % where the census had said 99 %.  Nor did it keep four figures of
-- its cost, nor why its GPU section was not ok.  Censuses stored before
-- schema 11 have NULL here (unknown, not 0), but for confirmed, which the
-- sum of their classes gives (NULL where the classes do not know it:
-- light censuses, and censuses from before schema 5).
ALTER TABLE censuses ADD COLUMN locked INTEGER;           -- Locked, summed over regions
ALTER TABLE censuses ADD COLUMN hugetlb INTEGER;          -- Shared_Hugetlb + Private_Hugetlb, summed
ALTER TABLE censuses ADD COLUMN confirmed INTEGER;        -- private bytes known by a name or evidence; NULL in a light census
ALTER TABLE censuses ADD COLUMN threads INTEGER;          -- threads seen (their stack pointers read)
ALTER TABLE censuses ADD COLUMN stack_pointers INTEGER;   -- stack pointers read
ALTER TABLE censuses ADD COLUMN evidence_batches INTEGER; -- calls of process_vm_readv that read evidence
ALTER TABLE censuses ADD COLUMN pages_looked_up INTEGER;  -- pages the page tables were asked about
ALTER TABLE censuses ADD COLUMN gpu_message TEXT;         -- why the GPU section is not ok; NULL when it is

UPDATE censuses SET confirmed = (SELECT sum(k.confirmed) FROM census_classes k
                                 WHERE k.census_id = coalesce(censuses.repeats, censuses.id))
WHERE status = 'ok' AND light = 0;
