-- Reply tokens are pruned with the other mail records (`[retention]`):
-- found by age.
CREATE INDEX reply_tokens_by_age ON reply_tokens(created_at);
