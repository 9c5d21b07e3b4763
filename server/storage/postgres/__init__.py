"""The PostgreSQL backend of the storage contract (`storage.PgStorage`), for ``--db
postgresql://...`` and clusters: its schema, write plan and batches, lease fence, tokens in
memory, finished games and ratings, moderation and tournaments."""
