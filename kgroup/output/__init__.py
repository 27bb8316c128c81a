"""Output: tables, JSON and CSV, streamed output, progress lines and sparklines."""
