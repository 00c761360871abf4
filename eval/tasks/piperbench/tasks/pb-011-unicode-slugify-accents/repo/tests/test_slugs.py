from blog.slugs import slugify, unique_slug


def test_accents_are_dropped_letters_kept():
    assert slugify("Crème Brûlée!") == "creme-brulee"
    assert slugify("Café au lait") == "cafe-au-lait"


def test_unique_slug_of_accented_title():
    assert unique_slug("Résumé tips", {"resume-tips"}) == "resume-tips-2"


def test_ascii_title():
    assert slugify("  Hello, World -- 2024 edition ") == "hello-world-2024-edition"


def test_full_width_characters():
    assert slugify("ＡＢＣ ２０２４") == "abc-2024"


def test_max_length_does_not_end_in_dash():
    assert slugify("word " * 30, max_length=12) == "word-word-wo"
    assert slugify("abcde fghij", max_length=6) == "abcde"


def test_unique_slug_counts_up():
    assert unique_slug("Post", {"post", "post-2"}) == "post-3"
