"""The tournament service's contract: its commands, its events and the views and
bodies its endpoints and the lobby's routes answer with."""
