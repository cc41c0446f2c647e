-- Messages held back from an account with no confirmed address: their text
-- is not kept, only who wrote to whom, how often and when last, so that the
-- account can be told with the next mail its address gets anyway (a
-- confirmation mail, or the answer to `confirm address`). One row per
-- recipient and author: a flood of messages stays one row.
CREATE TABLE held_back (
    userid  TEXT NOT NULL,      -- the recipient (lower-case)
    author  TEXT NOT NULL,      -- who wrote (lower-case)
    count   INTEGER NOT NULL,
    last_at TEXT NOT NULL,
    PRIMARY KEY (userid, author)
);
