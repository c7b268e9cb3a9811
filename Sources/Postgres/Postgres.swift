// Postgres layer
