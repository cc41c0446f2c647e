-- A tournament's ordered list of tiebreaks (FIDE codes separated by
-- spaces: "BH-C1 BH DE WIN"), set when it is opened and published with
-- it. Rows from before this column ('') take their system's default list.
ALTER TABLE tournaments ADD COLUMN tiebreaks TEXT NOT NULL DEFAULT '';
