"""A local Discord emulator for end-to-end tests of the bot (gateway + REST, enforcing Discord's limits).

See ``server.DiscordEmulator`` for the API and ``tests/test_emulator.py`` for examples.
"""

from .errors import EmulatorAssertion, EmulatorTimeout, InteractionFailed, RecordedError
from .models import Attachment, Interaction, Message
from .server import ALL_PERMISSIONS, DEFAULT_BOT_PERMISSIONS, DEFAULT_EVERYONE_PERMISSIONS, P as PERMISSIONS, DiscordEmulator

__all__ = [
    'DiscordEmulator', 'Message', 'Attachment', 'Interaction', 'RecordedError', 'EmulatorAssertion',
    'EmulatorTimeout', 'InteractionFailed', 'PERMISSIONS', 'ALL_PERMISSIONS', 'DEFAULT_BOT_PERMISSIONS',
    'DEFAULT_EVERYONE_PERMISSIONS',
]
