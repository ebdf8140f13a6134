def lookup(query: str) -> str:
    return ""
