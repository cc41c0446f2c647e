-- Tournaments: round robin and Swiss, per game.
CREATE TABLE tournaments (
    id           INTEGER PRIMARY KEY,
    game         TEXT NOT NULL,
    name         TEXT NOT NULL,             -- [a-z0-9-], at most 16
    kind         TEXT NOT NULL CHECK (kind IN ('roundrobin', 'swiss')),
    double       INTEGER NOT NULL DEFAULT 0, -- round robin: every pair twice
    rounds       INTEGER NOT NULL DEFAULT 0, -- Swiss: asked; round robin: set at start
    size         INTEGER NOT NULL,          -- players wanted; full starts it
    options      TEXT NOT NULL DEFAULT '',  -- game options, space separated
    nag_days     INTEGER,
    forfeit_days INTEGER,
    total_days   INTEGER,
    creator      TEXT,                      -- userid; NULL: the admin CLI
    state        TEXT NOT NULL DEFAULT 'open'
                 CHECK (state IN ('open', 'running', 'finished')),
    round        INTEGER NOT NULL DEFAULT 0, -- rounds paired so far
    note         TEXT NOT NULL DEFAULT '',  -- why it ended early, if it did
    created_at   TEXT NOT NULL,
    started_at   TEXT,
    finished_at  TEXT,
    UNIQUE (game, name)
);
CREATE INDEX tournaments_by_state ON tournaments(state);

CREATE TABLE tournament_entrants (
    tournament      INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
    userid          TEXT NOT NULL REFERENCES users(userid),
    joined          INTEGER NOT NULL,       -- join order, from 1
    seed            INTEGER,                -- place in the seeding (0-based), set at start
    rating          INTEGER,                -- rating at start
    withdrawn_after INTEGER,                -- NULL, or their games finished when they left
    PRIMARY KEY (tournament, userid)
);

-- The games of a tournament by seeds: a round's pairing and its boards are
-- made in one transaction, and this key makes each board exactly once.
CREATE TABLE tournament_games (
    tournament INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
    round      INTEGER NOT NULL,
    white      INTEGER NOT NULL,
    black      INTEGER NOT NULL,
    board      INTEGER,                     -- in the tournament's game; NULL until made
    score      TEXT,                        -- a withdrawal's ruling, over the board's result
    PRIMARY KEY (tournament, round, white, black)
);
CREATE INDEX tournament_games_by_board ON tournament_games(board);

CREATE TABLE tournament_byes (
    tournament INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
    round      INTEGER NOT NULL,
    entrant    INTEGER NOT NULL,
    PRIMARY KEY (tournament, round)
);
