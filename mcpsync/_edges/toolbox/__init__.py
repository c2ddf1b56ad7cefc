"""``ToolBox``: MCP tools handed to a model, in each vendor's format (``box``), their names and schemas
as the vendors take them (``schemas``), each vendor's shape of a definition, a call and a result
(``formats``), and the tool search that hands the model only what it asks for (``search``)."""
