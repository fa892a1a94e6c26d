-- ramwatch store, schema 6: identical fast-tier rows stored once.
-- A process that holds still writes the same raw row every StoreInterval.
-- Such rows (each one steady inside its interval: min = max = last for
-- private and resident, and the same values and swap as the row before)
-- are kept as one row that covers their span: time is the first row's,
-- until the last row's, samples the sum of theirs.  A single row has
-- until = time, as every row written before schema 6 has.
-- Since the values are the same at every moment of the span, min, max and
-- last over any window that meets it are still exact.

ALTER TABLE samples ADD COLUMN until INTEGER NOT NULL DEFAULT 0;
UPDATE samples SET until = time;

-- The views of the fast tier give a coalesced row at both ends of its
-- span, its first and its last time, with the same values: a graph draws
-- its flat stretch, and a window that holds either end finds it.  until
-- (unix seconds) says how far the row's values held.
-- Every fast-tier row at its first time, and a coalesced one at its last
-- time too.
CREATE VIEW samples_ends AS
SELECT process_id, resolution, time, private_max, resident_max FROM samples
UNION ALL
SELECT process_id, resolution, until, private_max, resident_max FROM samples WHERE until > time;

DROP VIEW memory_timeline;
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
       s.swap_last AS swap,
       s.until / 1000.0 AS until
FROM samples s
JOIN process_labels l ON l.process_id = s.process_id
UNION ALL
SELECT s.until / 1000.0, s.process_id, l.label, l.pid, s.resolution, s.private_last, s.private_max,
       s.resident_last, s.resident_max, s.swap_last, s.until / 1000.0
FROM samples s
JOIN process_labels l ON l.process_id = s.process_id
WHERE s.until > s.time;

DROP VIEW grafana_process_memory;
CREATE VIEW grafana_process_memory AS
SELECT e.time / 1000.0 AS time,
       l.label || ' private' AS metric,
       e.private_max AS value,
       e.time AS time_ms,
       'private' AS kind,
       e.process_id,
       l.pid,
       l.label,
       e.resolution
FROM samples_ends e
JOIN process_labels l ON l.process_id = e.process_id
UNION ALL
SELECT e.time / 1000.0,
       l.label || ' resident',
       e.resident_max,
       e.time,
       'resident',
       e.process_id,
       l.pid,
       l.label,
       e.resolution
FROM samples_ends e
JOIN process_labels l ON l.process_id = e.process_id;
