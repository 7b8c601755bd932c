"""The competition server: lobby, sessions, tables, auth and the admin channel (docs/NETWORK.md)."""
