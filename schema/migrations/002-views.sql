-- ramwatch store, schema 2: views for people and dashboards.
-- In views, time is unix seconds (Grafana's SQLite data source reads it as a
-- time column) and processes carry a readable label.

CREATE VIEW process_labels AS
SELECT id AS process_id,
       pid,
       comm,
       uid,
       coalesce(comm, '?') || ' [' || pid || ']' AS label,
       first_seen / 1000.0 AS first_seen,
       last_seen / 1000.0 AS last_seen,
       exited_at / 1000.0 AS exited_at,
       peak_private,
       peak_resident,
       cmdline
FROM processes;

-- The fast tier: recent rows at StoreInterval resolution, older ones as
-- minute and hour rows (resolution in ms, 0 for raw rows), which replace the
-- rows they were rolled up from.
CREATE VIEW memory_timeline AS
SELECT s.time / 1000.0 AS time,
       s.process_id,
       l.label,
       l.pid,
       s.resolution,
       s.private_last AS private,
       s.private_max,
       s.resident_last AS resident,
       s.resident_max,
       s.swap_last AS swap
FROM samples s
JOIN process_labels l ON l.process_id = s.process_id;

-- Class totals at each census: "what grew, when, and in which class".
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
       k.count
FROM censuses c
JOIN census_classes k ON k.census_id = c.id
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok';

-- Mapped files and libraries at each census: "which data file grew".
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
       f.regions
FROM censuses c
JOIN census_files f ON f.census_id = c.id
JOIN paths p ON p.id = f.path_id
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok';

-- Every census with its outcome and cost.
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
       c.cpu_us
FROM censuses c
JOIN process_labels l ON l.process_id = c.process_id;

-- Marks as annotations: time, title, tags.
CREATE VIEW annotations AS
SELECT m.time / 1000.0 AS time,
       m.name AS title,
       l.label AS text,
       'pid=' || l.pid AS tags,
       m.process_id
FROM marks m
JOIN process_labels l ON l.process_id = m.process_id;

CREATE VIEW region_changes AS
SELECT e.time / 1000.0 AS time,
       e.process_id,
       l.label,
       e.kind,
       printf('0x%x', e.start) AS start,
       e.class,
       p.path,
       e.size,
       e.size_before,
       e.private - e.private_before AS private_change,
       e.resident - e.resident_before AS resident_change
FROM region_events e
JOIN process_labels l ON l.process_id = e.process_id
LEFT JOIN paths p ON p.id = e.path_id;

CREATE VIEW machine_memory AS
SELECT time / 1000.0 AS time,
       mem_total,
       mem_available,
       mem_total - mem_available AS mem_used,
       swap_total - swap_free AS swap_used,
       committed_as,
       commit_limit,
       pressure_some_avg10,
       pressure_full_avg10
FROM system;
