-- What ramwatchd recorded: run with  sqlite3 -readonly -box STATE/ramwatch.db < doc/recorded.sql
.print 'Processes watched (largest peak first)'
SELECT label, round(peak_private / 1048576.0, 1) AS peak_private_mib,
       round(peak_resident / 1048576.0, 1) AS peak_resident_mib,
       datetime(first_seen, 'unixepoch') AS first_seen,
       coalesce(datetime(exited_at, 'unixepoch'), '') AS exited
FROM process_labels ORDER BY peak_private DESC LIMIT 10;

.print ''
.print 'Memory by class at the latest census of each process'
SELECT l.label, k.class, round(k.private / 1048576.0, 1) AS private_mib,
       round(k.resident / 1048576.0, 1) AS resident_mib, k.count AS regions
FROM class_timeline k
JOIN process_labels l ON l.process_id = k.process_id
WHERE k.census_id = (SELECT max(c.id) FROM censuses c WHERE c.process_id = k.process_id AND c.status = 'ok')
ORDER BY l.label, k.private DESC;

.print ''
.print 'Censuses: why, how they went, what they cost'
SELECT trigger, status, count(*) AS censuses, round(avg(cpu_us) / 1000.0, 2) AS avg_cpu_ms
FROM censuses GROUP BY trigger, status ORDER BY censuses DESC;

.print ''
.print 'The machine, last row'
SELECT datetime(time, 'unixepoch') AS time, round(mem_total / 1048576.0) AS total_mib,
       round(mem_available / 1048576.0) AS available_mib, round(committed_as / 1048576.0) AS committed_mib,
       pressure_some_avg10
FROM machine_memory ORDER BY time DESC LIMIT 1;
