-- ramwatch store, schema 16: a census taken because the memory its
-- process may use is nearly gone says so: trigger 'limit', taken when its
-- memory cgroup neared the limit that applies to it, or the host neared
-- exhaustion (ramwatchd.conf(5), NearLimit and NearExhaustion).  Before,
-- such a census was stored as 'growth'; those rows stay as they are, as
-- nothing in them tells them apart.
-- rebuilds: censuses
--
-- A CHECK constraint cannot be changed in place, so the table is made
-- again by SQLite's procedure for other changes of a table (ALTER TABLE,
-- "Making Other Kinds Of Table Schema Changes"): the store runs this with
-- foreign keys off (set outside the transaction, as they must be; with
-- them on, dropping the table would delete, through ON DELETE CASCADE,
-- every census's rows and region events, and unlink the OOM kills), checks
-- the foreign keys before it commits, and turns them on again after.
-- The rows keep their ids, so every table that refers to a census still
-- finds it.  The columns are those the table had, in the same order.
CREATE TABLE censuses_new (
    id INTEGER PRIMARY KEY,
    process_id INTEGER NOT NULL REFERENCES processes (id) ON DELETE CASCADE,
    time INTEGER NOT NULL,
    trigger TEXT NOT NULL CHECK (trigger IN ('first', 'interval', 'growth', 'mark', 'request', 'limit')),
    status TEXT NOT NULL CHECK (status IN ('ok', 'exited', 'denied', 'error')),
    light INTEGER NOT NULL DEFAULT 0,   -- 1: smaps_rollup and maps only
    message TEXT,
    private INTEGER,
    resident INTEGER,
    pss INTEGER,
    swap INTEGER,
    size INTEGER,
    regions INTEGER,
    counter_private INTEGER,            -- from status, read with the census
    counter_resident INTEGER,
    peak_resident INTEGER,
    wall_us INTEGER,
    cpu_us INTEGER,
    bytes_read INTEGER,
    gpu_state TEXT CHECK (gpu_state IN ('ok', 'no_library', 'no_devices', 'error')),
    gpu_driver_version INTEGER,
    nvidia_mapped INTEGER,
    evidence_taken INTEGER,
    evidence_why_not TEXT,
    evidence_regions INTEGER,
    evidence_confirmed INTEGER,
    evidence_split INTEGER,
    evidence_reads INTEGER,
    evidence_bytes INTEGER,
    counter_swap INTEGER,
    counter_rss_anon INTEGER,
    counter_rss_file INTEGER,
    counter_rss_shmem INTEGER,
    counter_locked INTEGER,
    counter_hugetlb INTEGER,
    repeats INTEGER REFERENCES censuses (id),
    base INTEGER REFERENCES censuses (id),
    locked INTEGER,
    hugetlb INTEGER,
    confirmed INTEGER,
    threads INTEGER,
    stack_pointers INTEGER,
    evidence_batches INTEGER,
    pages_looked_up INTEGER,
    gpu_message TEXT,
    in_use INTEGER,
    free INTEGER,
    overhead INTEGER,
    unknown INTEGER,
    returnable INTEGER
) STRICT;

INSERT INTO censuses_new SELECT * FROM censuses;

-- Its indexes and triggers go with it.
DROP TABLE censuses;

-- The views name censuses: renamed the legacy way, the new table takes the
-- name without SQLite checking, and failing on, views that name a table
-- that is not there for the moment (ALTER TABLE, "Compatibility Note").
PRAGMA legacy_alter_table = ON;
ALTER TABLE censuses_new RENAME TO censuses;
PRAGMA legacy_alter_table = OFF;

CREATE INDEX censuses_by_base ON censuses (base) WHERE base IS NOT NULL;
CREATE INDEX censuses_by_process ON censuses (process_id, time);
CREATE INDEX censuses_by_repeats ON censuses (repeats) WHERE repeats IS NOT NULL;
CREATE INDEX censuses_by_time ON censuses (time);

-- The triggers of schema 12, as they were.
-- A census that repeats point at: the oldest repeat takes its rows and its
-- key, and becomes a census of its own; the others repeat it, and the
-- deltas against the census are deltas against it.
CREATE TRIGGER censuses_hand_over BEFORE DELETE ON censuses
WHEN old.repeats IS NULL AND EXISTS (SELECT 1 FROM censuses WHERE repeats = old.id)
BEGIN
    -- the heir, while it still points at old, is the oldest of them
    UPDATE censuses SET repeats = (SELECT id FROM censuses WHERE repeats = old.id ORDER BY time, id LIMIT 1)
    WHERE repeats = old.id
      AND id <> (SELECT id FROM censuses WHERE repeats = old.id ORDER BY time, id LIMIT 1);
    UPDATE census_class_rows SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE census_region_rows SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE census_file_rows SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE census_gpu_rows SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE censuses SET base = (SELECT id FROM censuses WHERE repeats = old.id) WHERE base = old.id;
    UPDATE censuses SET repeats = NULL, base = old.base WHERE repeats = old.id;
END;

-- A key with deltas and no repeats: its deltas are made whole, the oldest
-- becomes the key, and the others are taken again as deltas against it.
CREATE TRIGGER censuses_rekey BEFORE DELETE ON censuses
WHEN old.repeats IS NULL
 AND NOT EXISTS (SELECT 1 FROM censuses WHERE repeats = old.id)
 AND EXISTS (SELECT 1 FROM censuses WHERE base = old.id)
BEGIN
    -- 1. every delta whole: the key's rows it had none of its own for
    INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count, confirmed,
                                   in_use, free, overhead, unknown, returnable, how, gone)
    SELECT c.id, k.class, k.private, k.resident, k.pss, k.swap, k.size, k.count, k.confirmed,
           k.in_use, k.free, k.overhead, k.unknown, k.returnable, k.how, 0
    FROM censuses c JOIN census_class_rows k ON k.census_id = old.id
    WHERE c.base = old.id AND k.gone = 0
      AND NOT EXISTS (SELECT 1 FROM census_class_rows d WHERE d.census_id = c.id AND d.class = k.class);
    INSERT INTO census_region_rows (census_id, rank, start, "end", perms, class, rule, private, resident, path_id,
                                    evidence, confirmed, part, gone)
    SELECT c.id, k.rank, k.start, k."end", k.perms, k.class, k.rule, k.private, k.resident, k.path_id,
           k.evidence, k.confirmed, k.part, 0
    FROM censuses c JOIN census_region_rows k ON k.census_id = old.id
    WHERE c.base = old.id AND k.gone = 0
      AND NOT EXISTS (SELECT 1 FROM census_region_rows d WHERE d.census_id = c.id AND d.rank = k.rank);
    INSERT INTO census_file_rows (census_id, path_id, kind, private, resident, size, regions, gone)
    SELECT c.id, k.path_id, k.kind, k.private, k.resident, k.size, k.regions, 0
    FROM censuses c JOIN census_file_rows k ON k.census_id = old.id
    WHERE c.base = old.id AND k.gone = 0
      AND NOT EXISTS (SELECT 1 FROM census_file_rows d WHERE d.census_id = c.id AND d.path_id = k.path_id);
    INSERT INTO census_gpu_rows (census_id, gpu_id, used, graphics, gone)
    SELECT c.id, k.gpu_id, k.used, k.graphics, 0
    FROM censuses c JOIN census_gpu_rows k ON k.census_id = old.id
    WHERE c.base = old.id AND k.gone = 0
      AND NOT EXISTS (SELECT 1 FROM census_gpu_rows d WHERE d.census_id = c.id AND d.gpu_id = k.gpu_id);
    DELETE FROM census_class_rows WHERE gone = 1 AND census_id IN (SELECT id FROM censuses WHERE base = old.id);
    DELETE FROM census_region_rows WHERE gone = 1 AND census_id IN (SELECT id FROM censuses WHERE base = old.id);
    DELETE FROM census_file_rows WHERE gone = 1 AND census_id IN (SELECT id FROM censuses WHERE base = old.id);
    DELETE FROM census_gpu_rows WHERE gone = 1 AND census_id IN (SELECT id FROM censuses WHERE base = old.id);

    -- 2. the others against the heir, the oldest; it alone still has
    -- base = old.id until step 4
    UPDATE censuses SET base = (SELECT id FROM censuses WHERE base = old.id ORDER BY time, id LIMIT 1)
    WHERE base = old.id
      AND id <> (SELECT id FROM censuses WHERE base = old.id ORDER BY time, id LIMIT 1);

    -- 3. the heir's rows they lack are marked gone (first: the marks look
    -- for the rows the deletion takes), then their rows equal to the
    -- heir's go
    INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count, confirmed,
                                   in_use, free, overhead, unknown, returnable, how, gone)
    SELECT c.id, h.class, h.private, h.resident, h.pss, h.swap, h.size, h.count, h.confirmed,
           h.in_use, h.free, h.overhead, h.unknown, h.returnable, h.how, 1
    FROM censuses c JOIN census_class_rows h ON h.census_id = c.base
    WHERE c.base = (SELECT id FROM censuses WHERE base = old.id)
      AND NOT EXISTS (SELECT 1 FROM census_class_rows x WHERE x.census_id = c.id AND x.class = h.class);
    DELETE FROM census_class_rows
    WHERE gone = 0
      AND census_id IN (SELECT id FROM censuses WHERE base = (SELECT id FROM censuses WHERE base = old.id))
      AND EXISTS (SELECT 1 FROM census_class_rows h
                  WHERE h.census_id = (SELECT id FROM censuses WHERE base = old.id)
                    AND h.class = census_class_rows.class AND h.private IS census_class_rows.private
                    AND h.resident IS census_class_rows.resident AND h.pss IS census_class_rows.pss
                    AND h.swap IS census_class_rows.swap AND h.size IS census_class_rows.size
                    AND h.count IS census_class_rows.count AND h.confirmed IS census_class_rows.confirmed
                    AND h.in_use IS census_class_rows.in_use
                    AND h.free IS census_class_rows.free
                    AND h.overhead IS census_class_rows.overhead
                    AND h.unknown IS census_class_rows.unknown
                    AND h.returnable IS census_class_rows.returnable
                    AND h.how IS census_class_rows.how);

    INSERT INTO census_region_rows (census_id, rank, start, "end", perms, class, rule, private, resident, path_id,
                                    evidence, confirmed, part, gone)
    SELECT c.id, h.rank, h.start, h."end", h.perms, h.class, h.rule, h.private, h.resident, h.path_id,
           h.evidence, h.confirmed, h.part, 1
    FROM censuses c JOIN census_region_rows h ON h.census_id = c.base
    WHERE c.base = (SELECT id FROM censuses WHERE base = old.id)
      AND NOT EXISTS (SELECT 1 FROM census_region_rows x WHERE x.census_id = c.id AND x.rank = h.rank);
    DELETE FROM census_region_rows
    WHERE gone = 0
      AND census_id IN (SELECT id FROM censuses WHERE base = (SELECT id FROM censuses WHERE base = old.id))
      AND EXISTS (SELECT 1 FROM census_region_rows h
                  WHERE h.census_id = (SELECT id FROM censuses WHERE base = old.id)
                    AND h.rank = census_region_rows.rank AND h.start IS census_region_rows.start
                    AND h."end" IS census_region_rows."end" AND h.perms IS census_region_rows.perms
                    AND h.class IS census_region_rows.class AND h.rule IS census_region_rows.rule
                    AND h.private IS census_region_rows.private AND h.resident IS census_region_rows.resident
                    AND h.path_id IS census_region_rows.path_id AND h.evidence IS census_region_rows.evidence
                    AND h.confirmed IS census_region_rows.confirmed AND h.part IS census_region_rows.part);

    INSERT INTO census_file_rows (census_id, path_id, kind, private, resident, size, regions, gone)
    SELECT c.id, h.path_id, h.kind, h.private, h.resident, h.size, h.regions, 1
    FROM censuses c JOIN census_file_rows h ON h.census_id = c.base
    WHERE c.base = (SELECT id FROM censuses WHERE base = old.id)
      AND NOT EXISTS (SELECT 1 FROM census_file_rows x WHERE x.census_id = c.id AND x.path_id = h.path_id);
    DELETE FROM census_file_rows
    WHERE gone = 0
      AND census_id IN (SELECT id FROM censuses WHERE base = (SELECT id FROM censuses WHERE base = old.id))
      AND EXISTS (SELECT 1 FROM census_file_rows h
                  WHERE h.census_id = (SELECT id FROM censuses WHERE base = old.id)
                    AND h.path_id = census_file_rows.path_id AND h.kind IS census_file_rows.kind
                    AND h.private IS census_file_rows.private AND h.resident IS census_file_rows.resident
                    AND h.size IS census_file_rows.size AND h.regions IS census_file_rows.regions);

    INSERT INTO census_gpu_rows (census_id, gpu_id, used, graphics, gone)
    SELECT c.id, h.gpu_id, h.used, h.graphics, 1
    FROM censuses c JOIN census_gpu_rows h ON h.census_id = c.base
    WHERE c.base = (SELECT id FROM censuses WHERE base = old.id)
      AND NOT EXISTS (SELECT 1 FROM census_gpu_rows x WHERE x.census_id = c.id AND x.gpu_id = h.gpu_id);
    DELETE FROM census_gpu_rows
    WHERE gone = 0
      AND census_id IN (SELECT id FROM censuses WHERE base = (SELECT id FROM censuses WHERE base = old.id))
      AND EXISTS (SELECT 1 FROM census_gpu_rows h
                  WHERE h.census_id = (SELECT id FROM censuses WHERE base = old.id)
                    AND h.gpu_id = census_gpu_rows.gpu_id AND h.used IS census_gpu_rows.used
                    AND h.graphics IS census_gpu_rows.graphics);

    -- 4. the heir is the key
    UPDATE censuses SET base = NULL WHERE base = old.id;
END;
