-- Move-list lines with decisions inside the move they belong to: a Shadow
-- Chess reveal (`reveal c4`) no longer opens a line of its own. The lines
-- stored before counted reveals by their seats: clear them on the boards
-- that have a reveal, so that each such board's lines are counted again (as
-- for plies stored before migration 0026).
UPDATE plies SET line = NULL
WHERE game = 'shadowchess'
  AND EXISTS (SELECT 1 FROM plies r
              WHERE r.game = plies.game AND r.board = plies.board
                AND substr(r.notation, 1, 7) = 'reveal ');
