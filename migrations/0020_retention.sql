-- Pruning old records by age (`[retention]`): indexes so that each pass
-- finds the old rows without scanning.
CREATE INDEX processed_mail_by_time ON processed_mail(processed_at);
CREATE INDEX outbox_sent ON outbox(sent_at) WHERE sent_at IS NOT NULL;
