-- ramwatch store, schema 13: in use and free in the views people read
-- classes from.  class_timeline gives each class's whole split (in_use,
-- free, overhead, unknown, returnable: schema 12's columns of
-- census_class_rows), grafana_process_classes its in_use, free and
-- returnable beside private, and grafana_process_in_use the long format a
-- Grafana panel draws: one series for the memory in use of each class a
-- heap walk read, one for what its allocator keeps free.  NULL (no row in
-- grafana_process_in_use) in a census that read no allocator of the class:
-- an interval census between two that read them (InUseInterval), a light
-- census, and every census stored before schema 12.
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
       c.repeats,
       k.in_use,
       k.free,
       k.overhead,
       k.unknown,
       k.returnable
FROM censuses c
JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok';

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
       c.id AS census_id,
       k.in_use,
       k.free,
       k.returnable
FROM censuses c
JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok' AND k.private IS NOT NULL;

CREATE VIEW grafana_process_in_use AS
SELECT c.time / 1000.0 AS time,
       k.class || ' in use' AS metric,
       k.in_use AS value,
       c.time AS time_ms,
       'in_use' AS kind,
       k.class,
       c.process_id,
       l.pid,
       l.label,
       c.id AS census_id
FROM censuses c
JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok' AND k.in_use IS NOT NULL
UNION ALL
SELECT c.time / 1000.0,
       k.class || ' free',
       k.free,
       c.time,
       'free',
       k.class,
       c.process_id,
       l.pid,
       l.label,
       c.id
FROM censuses c
JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok' AND k.free IS NOT NULL;
