-- What each ply leaves behind, so that loading a board and writing its turn
-- mail cost the same at ply 400 as at ply 4:
-- position_key: the 64-bit repetition key (`Position::position_key`, as a
--   signed integer of the same bits) of the position after the ply. A load
--   takes the board's position text and the keys of the plies since its
--   resume point (migration 0014) in place of replaying them.
-- line: the move-list line the ply stands on, counted from 1 (a line is a
--   seat-0 ply with the seat-1 ply after it; a seat that acts twice opens a
--   line of its own), so that a turn mail numbers its recent moves from one
--   row, not by counting over the whole game.
-- NULL in plies written before: such a board is replayed (and its keys
-- written) on its next load, and its lines are counted (and written) when its
-- next ply is stored.
ALTER TABLE plies ADD COLUMN position_key INTEGER;
ALTER TABLE plies ADD COLUMN line INTEGER;
