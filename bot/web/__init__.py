"""The web companion: a live page per game, replays and leaderboards, served over the bot's Redis (read only, but
for its own cache) by ``python -m bot.web`` or by the bot itself (``web_port``). Imports core, storage, i18n,
games, render and engine — never discord: no Discord token is needed or read here."""
