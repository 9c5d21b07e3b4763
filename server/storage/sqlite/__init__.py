"""The SQLite backend of the storage contract (`storage.SqliteStorage`), the embedded default:
its schema, tables in progress, finished games and ratings, moderation and tournaments."""
