-- ramwatch store, schema 10: nothing (a number kept for another change of
-- the schema, made at the same time; this file gives way to it).
SELECT 1;
