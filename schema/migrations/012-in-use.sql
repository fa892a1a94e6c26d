-- ramwatch store, schema 12: in use or kept.  A heap walk reads an
-- allocator's own structures (glibc's arenas and chunks, pymalloc's pools,
-- ...) and splits a class's private bytes into what the program still
-- uses (in_use), what the allocator keeps free (free, of which returnable
-- is whole pages it could give back), its own headers and structures
-- (overhead) and what no walk could tell (unknown): in_use + free +
-- overhead + unknown is the class's private memory.  how says what was
-- read.  NULL in a class no walk accounted for, and in every census
-- stored before schema 12.
ALTER TABLE censuses ADD COLUMN in_use INTEGER;       -- the sums over the classes a walk accounted for
ALTER TABLE censuses ADD COLUMN free INTEGER;
ALTER TABLE censuses ADD COLUMN overhead INTEGER;
ALTER TABLE censuses ADD COLUMN unknown INTEGER;
ALTER TABLE censuses ADD COLUMN returnable INTEGER;
ALTER TABLE census_class_rows ADD COLUMN in_use INTEGER;
ALTER TABLE census_class_rows ADD COLUMN free INTEGER;
ALTER TABLE census_class_rows ADD COLUMN overhead INTEGER;
ALTER TABLE census_class_rows ADD COLUMN unknown INTEGER;
ALTER TABLE census_class_rows ADD COLUMN returnable INTEGER;
ALTER TABLE census_class_rows ADD COLUMN how TEXT;  -- what the walk read: "glibc 2.36: 3 arenas, ..."

-- The view and the trigger that name the class rows' columns, made again
-- with the new ones (the trigger as schema 9 made it, but for them).
DROP VIEW census_classes;
CREATE VIEW census_classes AS
SELECT c.id AS census_id, k.class, k.private, k.resident, k.pss, k.swap, k.size, k.count, k.confirmed,
       k.in_use, k.free, k.overhead, k.unknown, k.returnable, k.how
FROM censuses c
JOIN census_class_rows k ON k.census_id IN (c.id, c.base)
WHERE k.gone = 0
  AND (k.census_id = c.id
       OR NOT EXISTS (SELECT 1 FROM census_class_rows d WHERE d.census_id = c.id AND d.class = k.class));

DROP TRIGGER censuses_rekey;
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
