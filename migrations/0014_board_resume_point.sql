-- Where loading a board starts: the position text after ply `resume_ply`,
-- the last ply after which the draw history began anew (an irreversible
-- action: the move clock back at 0). Replaying the plies after it gives the
-- position now with its whole draw history, so a load replays at most the
-- move rule's 100 plies, not the whole game. NULL: the board's start
-- position (with resume_ply 0). Any earlier ply is also correct, only slower.
ALTER TABLE boards ADD COLUMN resume_ply INTEGER NOT NULL DEFAULT 0;
ALTER TABLE boards ADD COLUMN resume_position TEXT;
