"""Java semantics that Kafka's output depends on, emulated exactly (pure Python)."""
