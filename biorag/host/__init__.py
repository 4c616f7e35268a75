"""What the host machine offers: text and JSON files read with clear errors, and the torch device
(and query precision) to run on. Below `biorag.settings`, which reads presets through it."""
