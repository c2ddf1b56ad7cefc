"""Layer 6, the manager: many named servers from an ``mcpServers`` configuration, as one object.

Configuration files, qualified tool names, the tool cache of earlier runs,
and when to reconnect a server that went away.
"""
