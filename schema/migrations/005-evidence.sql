-- ramwatch store, schema 5: evidence read from the process's memory.
-- A census may read the headers allocators wrote (only in resident pages)
-- to confirm whose anonymous memory is whose.  Each census says whether it
-- did, or why not; each class how much of its private memory is known by
-- a name or by evidence rather than by shape; each of the largest regions
-- what was read in it.  Censuses from before schema 5 have NULL here.

ALTER TABLE censuses ADD COLUMN evidence_taken INTEGER;      -- 1 read, 0 not; NULL before schema 5
ALTER TABLE censuses ADD COLUMN evidence_why_not TEXT;       -- why not, or why cut short; NULL when nothing to say
ALTER TABLE censuses ADD COLUMN evidence_regions INTEGER;    -- regions looked at
ALTER TABLE censuses ADD COLUMN evidence_confirmed INTEGER;  -- regions and parts whose owner was confirmed
ALTER TABLE censuses ADD COLUMN evidence_split INTEGER;      -- kernel regions split into parts
ALTER TABLE censuses ADD COLUMN evidence_reads INTEGER;      -- reads of the process's memory
ALTER TABLE censuses ADD COLUMN evidence_bytes INTEGER;      -- bytes they read

ALTER TABLE census_classes ADD COLUMN confirmed INTEGER;     -- private bytes known by name or evidence

ALTER TABLE census_regions ADD COLUMN evidence TEXT;         -- what was read and what it showed; NULL: nothing read
ALTER TABLE census_regions ADD COLUMN confirmed INTEGER;     -- 1: by name or evidence, 0: by shape
ALTER TABLE census_regions ADD COLUMN part INTEGER;          -- 1: a part of a kernel region split by evidence
