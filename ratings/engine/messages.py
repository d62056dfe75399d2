"""Messages the engine writes in English that pages show in the reader's language (issue 32)."""


def gettext_noop(message: str) -> str:
    """Marks a message for the translation catalogue (``makemessages`` looks for this name) without importing
    Django: the engine stays pure (.importlinter "engine"); the page translates it, then fills in its values."""
    return message
