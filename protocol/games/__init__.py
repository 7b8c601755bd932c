"""Per-game payloads. Each module defines a discriminated union (on ``kind``) of its payloads,
all with ``game`` set to the module's game; `protocol.payloads` joins them on ``game``."""
