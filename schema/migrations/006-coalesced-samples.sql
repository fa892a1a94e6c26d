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
