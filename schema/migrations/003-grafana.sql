-- ramwatch store: views for Grafana's SQLite data source
-- (frser-sqlite-datasource), one per question a dashboard asks.
-- A time series view has the long format Grafana turns into one series per
-- metric: time (unix seconds), metric (the series' name), value; the columns
-- after those three are for choosing rows.  Among them time_ms is the row's
-- time in unix milliseconds, the unit of Grafana's $__from and $__to, so a
-- panel filters with  time_ms >= $__from AND time_ms <= $__to  and SQLite
-- compares the table's own column (searching its index where it has one).

-- Private and resident memory of every process over time, from the fast
-- tier (raw, minute and hour rows; each stretch of time is there once).
-- value is the largest sample of the row's interval, so that a peak shows
-- however far a panel zooms out and however old the row is.
CREATE VIEW grafana_process_memory AS
SELECT s.time / 1000.0 AS time,
       l.label || ' private' AS metric,
       s.private_max AS value,
       s.time AS time_ms,
       'private' AS kind,
       s.process_id,
       l.pid,
       l.label,
       s.resolution
FROM samples s
JOIN process_labels l ON l.process_id = s.process_id
UNION ALL
SELECT s.time / 1000.0,
       l.label || ' resident',
       s.resident_max,
       s.time,
       'resident',
       s.process_id,
       l.pid,
       l.label,
       s.resolution
FROM samples s
JOIN process_labels l ON l.process_id = s.process_id;

-- The private memory of each class of a process at each census that read
-- it (light censuses read sizes only and are left out); metric is the
-- class, so a panel chooses one process by label, pid or process_id.
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
JOIN census_classes k ON k.census_id = c.id
JOIN process_labels l ON l.process_id = c.process_id
WHERE c.status = 'ok' AND k.private IS NOT NULL;

-- The machine's memory, in bytes; metric is the name of the matching
-- column of machine_memory.
CREATE VIEW grafana_system_memory AS
SELECT time / 1000.0 AS time, 'mem_used' AS metric, mem_total - mem_available AS value, time AS time_ms
FROM system
UNION ALL
SELECT time / 1000.0, 'mem_available', mem_available, time FROM system
UNION ALL
SELECT time / 1000.0, 'mem_total', mem_total, time FROM system
UNION ALL
SELECT time / 1000.0, 'swap_used', swap_total - swap_free, time FROM system
UNION ALL
SELECT time / 1000.0, 'committed_as', committed_as, time FROM system
UNION ALL
SELECT time / 1000.0, 'commit_limit', commit_limit, time FROM system;

-- Memory pressure (PSI), percent; no rows where the kernel has no PSI.
CREATE VIEW grafana_memory_pressure AS
SELECT time / 1000.0 AS time, 'pressure_some_avg10' AS metric, pressure_some_avg10 AS value, time AS time_ms
FROM system WHERE pressure_some_avg10 IS NOT NULL
UNION ALL
SELECT time / 1000.0, 'pressure_full_avg10', pressure_full_avg10, time
FROM system WHERE pressure_full_avg10 IS NOT NULL
UNION ALL
SELECT time / 1000.0, 'pressure_some_avg60', pressure_some_avg60, time
FROM system WHERE pressure_some_avg60 IS NOT NULL
UNION ALL
SELECT time / 1000.0, 'pressure_full_avg60', pressure_full_avg60, time
FROM system WHERE pressure_full_avg60 IS NOT NULL;

-- Marks as annotations, as the view annotations has them (time, title: the
-- mark's name, text: the process's label, tags: pid=PID), and each phase's
-- end: the process's next mark, else its exit; NULL while it runs.
CREATE VIEW grafana_marks AS
SELECT m.time / 1000.0 AS time,
       m.name AS title,
       l.label AS text,
       'pid=' || l.pid AS tags,
       coalesce((SELECT min(n.time) FROM marks n WHERE n.process_id = m.process_id AND n.time > m.time),
                p.exited_at) / 1000.0 AS time_end,
       m.time AS time_ms,
       m.process_id,
       l.pid,
       l.label
FROM marks m
JOIN processes p ON p.id = m.process_id
JOIN process_labels l ON l.process_id = m.process_id;

-- Censuses per minute, by trigger (metric: first, interval, growth, mark,
-- request); time is the minute's start.
CREATE VIEW grafana_census_rate AS
SELECT (c.time / 60000) * 60.0 AS time,
       c.trigger AS metric,
       count(*) AS value,
       (c.time / 60000) * 60000 AS time_ms
FROM censuses c
GROUP BY (c.time / 60000) * 60000, c.trigger;
