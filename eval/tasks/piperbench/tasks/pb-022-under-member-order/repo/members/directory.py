"""The club's member directory page: everyone listed as "Surname, First name"."""


def display_name(member):
    return f'{member["last"]}, {member["first"]}'


def sort_members(members):
    """The members in directory order."""
    return sorted(members, key=lambda m: (m["last"], m["first"]))


def directory_lines(members):
    return [display_name(m) for m in sort_members(members)]
