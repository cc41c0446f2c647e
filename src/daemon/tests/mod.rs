mod inbound;
mod outbox;
