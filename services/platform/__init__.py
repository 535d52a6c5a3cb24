"""What every service shares: settings, logging, Postgres, the event store, NATS, HTTP."""
