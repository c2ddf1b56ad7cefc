"""MCP Apps hosted by mcpsync: ``AppBridge`` (the dialect, for any host) and the notebook widget."""
