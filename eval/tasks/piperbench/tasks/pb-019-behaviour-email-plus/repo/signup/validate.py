"""Checks on the fields of the sign-up form."""
import re

_EMAIL = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
_USERNAME = re.compile(r"^[a-z][a-z0-9_]{2,19}$")


def valid_email(address):
    """A plausible address: a local part, "@", and a domain with at least one dot."""
    return bool(_EMAIL.match(address.strip()))


def valid_username(name):
    return bool(_USERNAME.match(name))


def form_errors(form):
    """A message for every invalid field of the form, keyed by field name."""
    errors = {}
    if not valid_username(form.get("username", "")):
        errors["username"] = "3-20 characters: lower-case letters, digits, underscores; start with a letter"
    if not valid_email(form.get("email", "")):
        errors["email"] = "enter a valid email address"
    if len(form.get("password", "")) < 10:
        errors["password"] = "at least 10 characters"
    return errors
