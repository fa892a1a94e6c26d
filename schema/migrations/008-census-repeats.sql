-- ramwatch store, schema 8: the steady census.
-- Before a census of a process it has censused before, the daemon reads
-- smaps_rollup and a fingerprint of the mappings; when both are as they
-- were before the last full census, it stores a census that found nothing
-- changed: a row whose repeats names that census (a full one of the same
-- process, itself no repeat).  Its totals, light, GPU and evidence columns
-- are copied from it; its classes, regions, files and GPU memory are the
-- repeated census's, read through repeats.  Its time, trigger and cost are
-- its own.  NULL: a census of its own, as every census before schema 8.
ALTER TABLE censuses ADD COLUMN repeats INTEGER REFERENCES censuses (id);

CREATE INDEX censuses_by_repeats ON censuses (repeats) WHERE repeats IS NOT NULL;

-- The views give a repeat the content of the census it repeats.
DROP VIEW class_timeline;
CREATE VIEW class_timeline AS
SELECT c.time / 1000.0 AS time,
       c.process_id,
       l.label,
       l.pid,
       c.id AS census_id,
       c.trigger,
       k.class,
       k.private,
       k.resident,
       k.pss,
       k.swap,
       k.count,
       c.repeats
FROM censuses c
JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok';

DROP VIEW file_timeline;
CREATE VIEW file_timeline AS
SELECT c.time / 1000.0 AS time,
       c.process_id,
       l.label,
       l.pid,
       c.id AS census_id,
       p.path,
       f.kind,
       f.private,
       f.resident,
       f.size,
       f.regions,
       c.repeats
FROM censuses c
JOIN census_files f ON f.census_id = coalesce(c.repeats, c.id)
JOIN paths p ON p.id = f.path_id
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok';

-- repeats: the census a repeat found nothing changed since; NULL for a
-- census of its own.
DROP VIEW census_log;
CREATE VIEW census_log AS
SELECT c.time / 1000.0 AS time,
       c.process_id,
       l.label,
       l.pid,
       c.id AS census_id,
       c.trigger,
       c.status,
       c.light,
       c.message,
       c.private,
       c.resident,
       c.wall_us,
       c.cpu_us,
       c.repeats
FROM censuses c
JOIN process_labels l ON l.process_id = c.process_id;

DROP VIEW grafana_process_classes;
CREATE VIEW grafana_process_classes AS
SELECT c.time / 1000.0 AS time,
       k.class AS metric,
       k.private AS value,
       c.time AS time_ms,
       c.process_id,
       l.pid,
       l.label,
       k.resident,
       c.id AS census_id
FROM censuses c
JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok' AND k.private IS NOT NULL;

-- A census that kept repeats point at does not take its content with it
-- when it goes (retention, MaxDatabaseSize): the oldest of its repeats
-- inherits its classes, regions, files and GPU memory and becomes a census
-- of its own (its row already holds the same totals), and the other
-- repeats point at it.  Its region events go with it: they are the changes
-- found at its time.
CREATE TRIGGER censuses_hand_over BEFORE DELETE ON censuses
WHEN old.repeats IS NULL AND EXISTS (SELECT 1 FROM censuses WHERE repeats = old.id)
BEGIN
    -- the heir, while it still points at old, is the oldest of them
    UPDATE censuses SET repeats = (SELECT id FROM censuses WHERE repeats = old.id ORDER BY time, id LIMIT 1)
    WHERE repeats = old.id
      AND id <> (SELECT id FROM censuses WHERE repeats = old.id ORDER BY time, id LIMIT 1);
    UPDATE census_classes SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE census_regions SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE census_files SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE census_gpu SET census_id = (SELECT id FROM censuses WHERE repeats = old.id) WHERE census_id = old.id;
    UPDATE censuses SET repeats = NULL WHERE repeats = old.id;
END;
