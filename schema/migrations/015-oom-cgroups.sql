-- ramwatch store, schema 15: why a process died, and the memory cgroups
-- that limit processes.
--
-- oom_kills holds every OOM kill the daemon learnt of, of watched and
-- unwatched processes alike; cgroups and cgroup_samples are the timelines
-- of the memory cgroups that hold watched processes, beside the memory of
-- their processes, so that what the kernel charges a group beyond its
-- processes (page cache, kernel memory, tmpfs) shows.  Sizes are bytes,
-- times unix milliseconds.

-- A memory cgroup, stored once, found by its version and path.  path is
-- the group below the memory controller's mount ("/system.slice/foo.service",
-- "/" for the mount's root); unit is the systemd unit the path names, its
-- last component that is one (".service", ".scope", ".socket", ".mount",
-- ".swap": a container's scope too), NULL where none; inode is the
-- directory's inode, which the kernel gives as the group's id (the last
-- seen: a group made again at the same path is the same row).
CREATE TABLE cgroups (
    id INTEGER PRIMARY KEY,
    version INTEGER NOT NULL CHECK (version IN (1, 2)),
    path TEXT NOT NULL,
    unit TEXT,
    inode INTEGER,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    UNIQUE (path, version)
) STRICT;

CREATE INDEX cgroups_by_unit ON cgroups (unit) WHERE unit IS NOT NULL;

-- A group every StoreInterval (resolution 0), rolled up into minutes and
-- hours as samples are: usage is the last figure of the row's interval,
-- usage_max the largest; every other figure is the last.  limit_applies is
-- the limit that applies to the group (its own or an ancestor's, the
-- lowest: v1's hierarchical_memory_limit, v2's lowest memory.max up the
-- tree), limit_own its own; NULL: no limit.  high is v2's memory.high
-- (NULL: none, or v1).  anon ... sock are memory.stat's, the group with its
-- descendants (kernel: v2, and v1's kmem; sock: v2 only; NULL where the
-- version has none).  oom, oom_kill, events_high and events_max are the
-- group's counters since it was made (v1 memory.oom_control; v2
-- memory.events high, max, oom, oom_kill); NULL where not read.
-- processes is how many watched processes were in the group, and
-- processes_private and processes_resident the sums of their last
-- figures, at the row's time.
CREATE TABLE cgroup_samples (
    cgroup_id INTEGER NOT NULL REFERENCES cgroups (id) ON DELETE CASCADE,
    resolution INTEGER NOT NULL,
    time INTEGER NOT NULL,
    usage INTEGER NOT NULL,
    usage_max INTEGER NOT NULL,
    limit_applies INTEGER,
    limit_own INTEGER,
    high INTEGER,
    swap INTEGER,
    anon INTEGER,
    file INTEGER,
    kernel INTEGER,
    shmem INTEGER,
    sock INTEGER,
    oom INTEGER,
    oom_kill INTEGER,
    events_high INTEGER,
    events_max INTEGER,
    processes INTEGER NOT NULL,
    processes_private INTEGER NOT NULL,
    processes_resident INTEGER NOT NULL,
    PRIMARY KEY (cgroup_id, resolution, time)
) STRICT, WITHOUT ROWID;

CREATE INDEX cgroup_samples_by_time ON cgroup_samples (resolution, time);

-- An OOM kill.  sources says who told it: 'bpf' (the OOM watch), 'kmsg'
-- (the kernel's log), both ('bpf,kmsg'), or 'counter' for a kill only
-- counted (the kernel's oom_kill counters went up and no source told it:
-- the daemon was down, a log line was lost), whose details are all NULL.
-- process_id is the victim where the daemon watched it; pid and comm are
-- kept for every victim.  oom_constraint is what confined the kernel's
-- choice: 'memcg' (a cgroup's limit), 'none' (the whole machine),
-- 'cpuset', 'memory_policy'; NULL unknown.  cgroup is the victim's memory
-- cgroup, limit_cgroup the one whose limit was hit (the victim's own or an
-- ancestor), limit_hit that limit and usage the group's usage at the
-- kill.  total_vm ... oom_score_adj are the kernel's figures for the
-- victim at the kill (its log line); NULL where it did not say.
-- census_id is the victim's last census before its death (set when the
-- census is stored after the kill), sample_time the time of its last
-- fast-tier row (which a rollup may since have merged into a minute or
-- hour row).
CREATE TABLE oom_kills (
    id INTEGER PRIMARY KEY,
    time INTEGER NOT NULL,
    sources TEXT NOT NULL,
    pid INTEGER,
    process_id INTEGER REFERENCES processes (id) ON DELETE SET NULL,
    comm TEXT,
    uid INTEGER,
    oom_constraint TEXT CHECK (oom_constraint IN ('memcg', 'none', 'cpuset', 'memory_policy')),
    cgroup TEXT,
    limit_cgroup TEXT,
    limit_hit INTEGER,
    usage INTEGER,
    total_vm INTEGER,
    anon_rss INTEGER,
    file_rss INTEGER,
    shmem_rss INTEGER,
    pgtables INTEGER,
    oom_score_adj INTEGER,
    census_id INTEGER REFERENCES censuses (id) ON DELETE SET NULL,
    sample_time INTEGER
) STRICT;

CREATE INDEX oom_kills_by_time ON oom_kills (time);
CREATE INDEX oom_kills_by_process ON oom_kills (process_id) WHERE process_id IS NOT NULL;
CREATE INDEX oom_kills_by_census ON oom_kills (census_id) WHERE census_id IS NOT NULL;

-- Views, as those of schema 2 and 3: time in unix seconds.

-- Each group over time, with its headroom (the limit that applies less
-- its usage; NULL without a limit) and what the kernel charges it beyond
-- the private memory of its watched processes (page cache, kernel memory,
-- tmpfs, and the memory of processes not watched).
CREATE VIEW cgroup_timeline AS
SELECT s.time / 1000.0 AS time,
       s.cgroup_id,
       g.path,
       g.unit,
       g.version,
       s.resolution,
       s.usage,
       s.usage_max,
       s.limit_applies,
       s.limit_applies - s.usage AS headroom,
       s.high,
       s.swap,
       s.anon,
       s.file,
       s.kernel,
       s.shmem,
       s.sock,
       s.oom,
       s.oom_kill,
       s.processes,
       s.processes_private,
       max(s.usage - s.processes_private, 0) AS beyond_processes
FROM cgroup_samples s
JOIN cgroups g ON g.id = s.cgroup_id;

-- Grafana: each group's usage, limit, high and memory beyond its
-- processes, in the long format of grafana_system_memory; metric is
-- "NAME usage", "NAME limit", "NAME high" or "NAME beyond processes",
-- NAME the group's unit, else its path.
CREATE VIEW grafana_cgroup_timeline AS
SELECT s.time / 1000.0 AS time,
       coalesce(g.unit, g.path) || ' usage' AS metric,
       s.usage AS value,
       s.time AS time_ms,
       'usage' AS kind,
       s.cgroup_id,
       g.path,
       g.unit,
       s.resolution
FROM cgroup_samples s
JOIN cgroups g ON g.id = s.cgroup_id
UNION ALL
SELECT s.time / 1000.0, coalesce(g.unit, g.path) || ' limit', s.limit_applies, s.time, 'limit', s.cgroup_id,
       g.path, g.unit, s.resolution
FROM cgroup_samples s
JOIN cgroups g ON g.id = s.cgroup_id
WHERE s.limit_applies IS NOT NULL
UNION ALL
SELECT s.time / 1000.0, coalesce(g.unit, g.path) || ' high', s.high, s.time, 'high', s.cgroup_id,
       g.path, g.unit, s.resolution
FROM cgroup_samples s
JOIN cgroups g ON g.id = s.cgroup_id
WHERE s.high IS NOT NULL
UNION ALL
SELECT s.time / 1000.0, coalesce(g.unit, g.path) || ' beyond processes', max(s.usage - s.processes_private, 0),
       s.time, 'beyond_processes', s.cgroup_id, g.path, g.unit, s.resolution
FROM cgroup_samples s
JOIN cgroups g ON g.id = s.cgroup_id;

-- Grafana: the OOM kills, one row each, for a table or as annotations
-- (time, text); value is 1, so a panel can count them.  label is
-- "comm [pid]", "?" for a kill only counted.
CREATE VIEW grafana_oom_kills AS
SELECT k.time / 1000.0 AS time,
       coalesce(k.comm, '?') || CASE WHEN k.pid IS NULL THEN '' ELSE ' [' || k.pid || ']' END AS label,
       1 AS value,
       k.time AS time_ms,
       'OOM kill of ' || coalesce(k.comm, 'a process') || CASE WHEN k.pid IS NULL THEN '' ELSE ' [' || k.pid || ']' END
           || CASE WHEN k.limit_cgroup IS NOT NULL THEN ' at the limit of ' || k.limit_cgroup ELSE '' END AS text,
       k.id AS oom_kill_id,
       k.pid,
       k.process_id,
       k.comm,
       k.uid,
       k.sources,
       k.oom_constraint,
       k.cgroup,
       k.limit_cgroup,
       k.limit_hit,
       k.usage,
       k.total_vm,
       k.anon_rss,
       k.file_rss,
       k.shmem_rss,
       k.census_id
FROM oom_kills k;
