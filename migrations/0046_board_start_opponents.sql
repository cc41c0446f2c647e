-- Who a board started by mail was started against: a
-- challenge spends its challenger's daily allowance only, and one
-- challenger starts at most a few boards a day against one opponent.
-- Rows from before this column (NULL) count for their userid's total.
ALTER TABLE board_starts ADD COLUMN opponent TEXT;
CREATE INDEX board_starts_by_pair ON board_starts (userid, opponent, started_at);
