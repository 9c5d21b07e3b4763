"""What lasts: the storage contract (`contract`), the choice of backend for ``--db``
(`database`), SQLite to PostgreSQL migration (`migrate`), and the two backends, `sqlite` and
`postgres`. Nothing above the contract knows which backend it runs on."""
