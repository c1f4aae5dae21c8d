"""The Discord interface: the client, the command tree, replies, posts, buttons, and the worker pools behind them."""
