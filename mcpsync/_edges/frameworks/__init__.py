"""MCP tools in agent frameworks (LangChain/LangGraph, LlamaIndex, smolagents, the OpenAI Agents SDK,
Pydantic AI), each built on a ``ToolBox``: ``box.langchain()``, ``box.llama_index()``, ... One module per
framework, each importing its framework only when called; ``common`` holds what they share."""
