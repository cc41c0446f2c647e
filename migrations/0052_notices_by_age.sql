-- Notices sent at most once a day are forgotten a day after they were
-- sent (retention): found by when they were sent.
CREATE INDEX notices_sent_by_age ON notices_sent(sent_at);
