# Orchestrator module
# Import directly from submodules to avoid circular imports:
#
# Base class (for custom orchestrators):
#   from tau2.orchestrator.orchestrator import BaseOrchestrator
#
# Half-duplex (turn-based):
#   from tau2.orchestrator.orchestrator import Orchestrator
#
# Full-duplex with get_next_chunk() interface:
#   from tau2.orchestrator.full_duplex_orchestrator import FullDuplexOrchestrator, Tick
#
# Communication modes:
#   from tau2.orchestrator.modes import CommunicationMode
