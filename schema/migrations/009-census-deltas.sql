-- ramwatch store, schema 9: censuses stored as changes.
-- A census is either a key, whose rows hold all of its classes, regions,
-- files and GPU memory, or a delta against one key of the same process
-- (censuses.base): its rows hold only what differs from the key's (a row
-- of the same class, rank, path or GPU with another value, or one the key
-- lacks), and a row with gone = 1 for each one the key has and it lacks.
-- Deltas are never taken against deltas, so reading a census reads at most
-- two censuses' rows.  The rows live in the *_rows tables; census_classes,
-- census_regions, census_files and census_gpu are views with the columns
-- the tables had, which give every census its whole content, so every
-- query written for schema 8 reads the same rows.  Censuses written before
-- schema 9 are keys.
ALTER TABLE censuses ADD COLUMN base INTEGER REFERENCES censuses (id);

CREATE INDEX censuses_by_base ON censuses (base) WHERE base IS NOT NULL;

-- Rewritten below for the rows tables.
DROP TRIGGER censuses_hand_over;

-- The views of schema 8 name census_classes and census_files: renamed the
-- legacy way, they keep that name and so read the views created below.
PRAGMA legacy_alter_table = ON;
ALTER TABLE census_classes RENAME TO census_class_rows;
ALTER TABLE census_regions RENAME TO census_region_rows;
ALTER TABLE census_files RENAME TO census_file_rows;
ALTER TABLE census_gpu RENAME TO census_gpu_rows;
PRAGMA legacy_alter_table = OFF;

ALTER TABLE census_class_rows ADD COLUMN gone INTEGER NOT NULL DEFAULT 0;
ALTER TABLE census_region_rows ADD COLUMN gone INTEGER NOT NULL DEFAULT 0;
ALTER TABLE census_file_rows ADD COLUMN gone INTEGER NOT NULL DEFAULT 0;
ALTER TABLE census_gpu_rows ADD COLUMN gone INTEGER NOT NULL DEFAULT 0;

-- A census's rows: its own (but the gone ones), then its key's that it
-- has no row of its own for.
CREATE VIEW census_classes AS
SELECT c.id AS census_id, k.class, k.private, k.resident, k.pss, k.swap, k.size, k.count, k.confirmed
FROM censuses c
JOIN census_class_rows k ON k.census_id IN (c.id, c.base)
WHERE k.gone = 0
  AND (k.census_id = c.id
       OR NOT EXISTS (SELECT 1 FROM census_class_rows d WHERE d.census_id = c.id AND d.class = k.class));

CREATE VIEW census_regions AS
SELECT c.id AS census_id, k.rank, k.start, k."end", k.perms, k.class, k.rule, k.private, k.resident, k.path_id,
       k.evidence, k.confirmed, k.part
FROM censuses c
JOIN census_region_rows k ON k.census_id IN (c.id, c.base)
WHERE k.gone = 0
  AND (k.census_id = c.id
       OR NOT EXISTS (SELECT 1 FROM census_region_rows d WHERE d.census_id = c.id AND d.rank = k.rank));

CREATE VIEW census_files AS
SELECT c.id AS census_id, k.path_id, k.kind, k.private, k.resident, k.size, k.regions
FROM censuses c
JOIN census_file_rows k ON k.census_id IN (c.id, c.base)
WHERE k.gone = 0
  AND (k.census_id = c.id
       OR NOT EXISTS (SELECT 1 FROM census_file_rows d WHERE d.census_id = c.id AND d.path_id = k.path_id));

CREATE VIEW census_gpu AS
SELECT c.id AS census_id, k.gpu_id, k.used, k.graphics
FROM censuses c
JOIN census_gpu_rows k ON k.census_id IN (c.id, c.base)
WHERE k.gone = 0
  AND (k.census_id = c.id
       OR NOT EXISTS (SELECT 1 FROM census_gpu_rows d WHERE d.census_id = c.id AND d.gpu_id = k.gpu_id));

-- A census that repeats point at, as in schema 8: the oldest repeat takes
-- its rows and its key, and becomes a census of its own; the others
-- repeat it, and the deltas against the census are deltas against it.
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
-- The work is that of the deltas of one key (at most
-- RW_CENSUS_DELTAS_MAX), done once per key.
CREATE TRIGGER censuses_rekey BEFORE DELETE ON censuses
WHEN old.repeats IS NULL
 AND NOT EXISTS (SELECT 1 FROM censuses WHERE repeats = old.id)
 AND EXISTS (SELECT 1 FROM censuses WHERE base = old.id)
BEGIN
    -- 1. every delta whole: the key's rows it had none of its own for
    INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count, confirmed, gone)
    SELECT c.id, k.class, k.private, k.resident, k.pss, k.swap, k.size, k.count, k.confirmed, 0
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
    INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count, confirmed, gone)
    SELECT c.id, h.class, h.private, h.resident, h.pss, h.swap, h.size, h.count, h.confirmed, 1
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
                    AND h.count IS census_class_rows.count AND h.confirmed IS census_class_rows.confirmed);

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
