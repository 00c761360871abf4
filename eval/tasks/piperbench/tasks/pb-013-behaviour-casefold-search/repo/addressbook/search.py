"""Finding contacts by a fragment of their name or street."""


def normalize(text):
    """The form in which names are compared: case-insensitive, runs of spaces collapsed."""
    return " ".join(text.lower().split())


def matches(contact, query):
    q = normalize(query)
    return q in normalize(contact["name"]) or q in normalize(contact["street"])


def find(contacts, query):
    """Contacts whose name or street contains `query`, ignoring case and extra spaces."""
    if not query.strip():
        return []
    return [c for c in contacts if matches(c, query)]
