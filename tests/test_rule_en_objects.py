"""An English liking's object as LoCoMo's dev lines said it: cut at eight words mid-phrase ("Melanie loves how it's
both a creative outlet and a"), past a 'cause, and with the speaker's "my" left inside it, which the agent's
prompt reads as its own."""

from __future__ import annotations

import pytest

from test_rule_en_gaps import facts


@pytest.mark.parametrize(
    ("text", "described"),
    [
        (
            "I love how it's both a creative outlet and a form of therapy.",
            "Mia loves how it's both a creative outlet and a form of therapy",
        ),
        (
            "I'm a fan of both classical like Bach and Mozart, as well as modern music",
            "Mia is a fan of both classical like Bach and Mozart",
        ),
        ("I love camping trips with my fam, 'cause nature brings such peace", "Mia loves camping trips with Mia's fam"),
        ("I like hiking with my sister", "Mia likes hiking with Mia's sister"),
        (  # longer than twelve words: cut where a phrase ends, not on "in"
            "I love going on long walks along the beach near my parents' old house in the early morning",
            "Mia loves going on long walks along the beach near Mia's parents' old house",
        ),
    ],
)
def test_a_liking_is_said_whole_and_as_the_speakers(text: str, described: str) -> None:
    assert described in facts(text), facts(text)


def test_a_dash_ends_the_object_and_a_bare_to_is_none() -> None:
    """ "Melanie is a big fan of pottery - the creativity and skill is awesome", and "Yeah, I love to." was
    "Melanie loves to" (LoCoMo dev lines)."""
    assert "Mia is a big fan of pottery" in facts("I'm a big fan of pottery - the creativity and skill is awesome.")
    assert facts("Yeah, I love to. It's peaceful and special.") == set()
    assert "Mia loves spider-man" in facts("I love spider-man")


def test_it_with_a_comma_after_is_no_object() -> None:
    """ "I love it, oh my god" was the fact "Mia loves it, oh my god": "it," was not taken for it."""
    assert facts("I love it, oh my god") == set()


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I love spending time with the friends I have", "Mia loves spending time with the friends"),
        (
            "I like having these little ones around to keep me calm",
            "Mia likes having these little ones around to keep Mia calm",
        ),
        ("I love your turtles", "Mia loves Kai's turtles"),
        ("I love when you try something new and it works out", "Mia loves when you try something new and it works out"),
    ],
)
def test_me_i_and_your_inside_a_liking_are_whose_they_are(text: str, described: str) -> None:
    """LoCoMo dev lines gave "Maria loves spending time with the friends I have", "Nate likes … to keep me calm"
    and "Joanna loves your turtles", each read in the agent's prompt as the agent's friends, calm or turtles."""
    assert described in facts(text), facts(text)


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I like what I see", set()),
        ("I love how I feel after a run", set()),
        ("I love movies where I can laugh", {"Mia loves movies"}),
        ("I love a coffee before I go to work", {"Mia loves a coffee"}),
    ],
)
def test_a_clause_of_i_goes_with_the_word_that_opens_it(text: str, described: set[str]) -> None:
    """05e5070 cut only from the I on, so the liking read "Mia likes what", "Mia loves how" and "Mia loves movies
    where"; the word that opens the clause goes with it, and a liking that was all the clause is none."""
    assert facts(text) == described


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("I love the song I Will Survive", "I Will Survive"),
        ('I love the book "Everything I Never Told You"', "Everything I Never Told You"),
    ],
)
def test_an_i_in_a_title_is_kept(text: str, kept: str) -> None:
    """05e5070 cut the title at its I: "Mia loves the song" and 'Mia loves the book "Everything'."""
    assert any(kept in fact for fact in facts(text)), facts(text)


@pytest.mark.parametrize("text", ["I love me time", "I love my me-time on Sundays"])
def test_me_time_is_no_name(text: str) -> None:
    """05e5070 made the me of "me time" the speaker: "Mia loves Mia time", "Mia loves Mia's Mia-time"."""
    assert not any("Mia time" in fact or "Mia-time" in fact for fact in facts(text)), facts(text)
    assert facts(text)


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I love when people tell me I'm pretty", "Mia loves when people tell Mia that Mia is pretty"),
        ("I love hearing people say I really inspire them", "Mia loves hearing people say Mia really inspires them"),
        ("I love knowing I can help", "Mia loves knowing Mia can help"),
    ],
)
def test_an_i_told_of_is_said_of_the_speaker(text: str, described: str) -> None:
    """The I after "tell me", "say" or "knowing" was cut as a clause of I: "Mia loves when people tell Mia", "Mia
    loves hearing people say", "Mia loves knowing", what was told lost."""
    assert described in facts(text), facts(text)


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ('I love the song "Bohemian Rhapsody"', 'Mia loves the song "Bohemian Rhapsody"'),
        ("I love the song “Hey Jude”!", "Mia loves the song “Hey Jude”"),
        ("I love the movie 'The Notebook'", "Mia loves the movie 'The Notebook'"),
        ('I love "Frozen" and "Moana"', 'Mia loves "Frozen" and "Moana"'),
        ('My favorite song is "Let It Be" by the Beatles', 'Mia\'s favourite song is "Let It Be" by the Beatles'),
        ('My favorite book is "The Little Prince"', "Mia's favourite book is The Little Prince"),
    ],
)
def test_a_quoted_title_keeps_both_quotes_or_neither(text: str, described: str) -> None:
    """A quote at an end of the object was stripped whatever it closed: 'Mia loves the song "Bohemian Rhapsody',
    'Mia's favourite song is Let It Be" by the Beatles', 'Mia loves Frozen" and "Moana'."""
    assert described in facts(text), facts(text)


@pytest.mark.parametrize(
    ("text", "described"),
    [
        (
            "I like to just take a look at the sunset- it reminds me to enjoy the small things in life.",
            {"Mia likes to just take a look at the sunset"},
        ),
        ("I'm a fan of pottery—the skill is awesome", {"Mia is a fan of pottery"}),
        ("I love spider-man", {"Mia loves spider-man"}),
    ],
)
def test_a_dash_at_a_word_ends_the_object(text: str, described: set[str]) -> None:
    """A dash with no space before it ("sunset- it") or none on either side ("pottery—the") was no end: "Mia likes
    to just take a look at the sunset- it reminds Mia" (a LoCoMo dev line, cut at twelve words)."""
    assert facts(text) == described


@pytest.mark.parametrize(
    "text",
    ["I'm a huge fan of it, that's why I go!", "I'm a big fan of them and thought it would be a fun idea"],
)
def test_a_fan_of_a_pronoun_is_no_fact(text: str) -> None:
    """ "I love it" says nothing, but "I'm a huge fan of it" was "Mia is a huge fan of it", and "Mia is a big fan of
    them and thought it would be a fun" (LoCoMo dev lines); a fan of that band or of those shows stays."""
    assert facts(text) == set()
    assert facts("I'm a fan of that band") == {"Mia is a fan of that band"}


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I love when it's too hot", {"Mia loves when it's too hot"}),
        ("I hate when people tell me I'm too young", {"Mia hates when people tell Mia that Mia is too young"}),
        ("I love pizza too!", {"Mia loves pizza"}),
        ("I love pizza too much", {"Mia loves pizza"}),
    ],
)
def test_a_too_inside_the_object_stays(text: str, described: set[str]) -> None:
    """Any too cut the object, there for "I love pizza too": "Mia loves when it's", "Mia hates when people tell
    Mia I'm"."""
    assert facts(text) == described


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("My favorite show is 'Grey's Anatomy'!", "Mia's favourite show is Grey's Anatomy"),
        ("I love 'Ocean's Eleven'", "Mia loves Ocean's Eleven"),
    ],
)
def test_a_title_quoted_whole_with_an_apostrophe_loses_both_quotes(text: str, described: str) -> None:
    """The apostrophe of Grey's was taken for a quote inside, so the title was not quoted whole and kept its quotes:
    "Mia's favourite show is 'Grey's Anatomy'", where 'Friends' is "Mia loves Friends"."""
    assert described in facts(text), facts(text)


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I love when it's -5 outside", {"Mia loves when it's -5 outside"}),
        ("I love 5 -10 minute walks in the morning", {"Mia loves 5 -10 minute walks in the morning"}),
    ],
)
def test_a_minus_is_no_dash(text: str, described: set[str]) -> None:
    """989fb33 ended the object at a dash with a space before it, a minus too: "Mia loves when it's", "Mia loves 5"."""
    assert facts(text) == described


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I love pre- and post-workout snacks", {"Mia loves pre- and post-workout snacks"}),
        ("I love teaching 3- and 4-year-olds", {"Mia loves teaching 3- and 4-year-olds"}),
        ("I love the sunset-  it's gorgeous", {"Mia loves the sunset"}),
    ],
)
def test_a_hyphen_waiting_for_its_word_is_no_dash(text: str, described: set[str]) -> None:
    """989fb33 ended the object at a dash with a space after it, the hyphen of "pre- and post-workout" too: "Mia
    loves pre", "Mia loves teaching 3"."""
    assert facts(text) == described


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I love my dog too ❤️", {"Mia loves Mia's dog"}),
        ("I love Jon too :)", {"Mia loves Jon"}),
        ("I love summer too tbh", {"Mia loves summer"}),
        ("I love summer too though", {"Mia loves summer"}),
    ],
)
def test_a_too_before_an_emoji_or_a_filler_ends_the_object(text: str, described: set[str]) -> None:
    """54c2dc6 cut a too only before punctuation or the end: "Mia loves Mia's dog too ❤️", "Mia loves summer too"."""
    assert facts(text) == described


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("my favorite food is sushi tho", {"Mia's favourite food is sushi"}),
        ("I love sushi tho", {"Mia loves sushi"}),
        ("I hate mornings ngl", {"Mia hates mornings"}),
    ],
)
def test_tho_and_ngl_are_chat_fillers(text: str, described: set[str]) -> None:
    """The fillers said as texts say them were kept in the object: "Liz's favourite food is sushi tho"."""
    assert facts(text) == described


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I hate when people think I'd forgotten them", "Mia hates when people think Mia had forgotten them"),
        (
            "I hate when people tell me I'd better smile more",
            "Mia hates when people tell Mia that Mia had better smile more",
        ),
        ("I hate when people think I haven't tried", "Mia hates when people think Mia hasn't tried"),
        (
            "I love when people tell me I'd make a great mom",
            "Mia loves when people tell Mia that Mia would make a great mom",
        ),
    ],
)
def test_the_verb_of_an_i_told_of_agrees(text: str, described: str) -> None:
    """d6de5e9 read every I'd as I would and kept haven't as it was: "Mia hates when people think Mia would forgotten
    them", "Mia haven't tried"."""
    assert described in facts(text), facts(text)


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I love the feeling I get knowing I helped", {"Mia loves the feeling Mia gets knowing Mia helped"}),
        ("I love hearing I passed!", {"Mia loves hearing Mia passed"}),
    ],
)
def test_an_i_told_of_may_end_the_object(text: str, described: set[str]) -> None:
    """An I told of was said of the name only with a word after its verb; the last one was cut as a clause of I, so
    "Mia loves the feeling Mia gets knowing" dangled (and "I love hearing I passed" was "Mia loves hearing")."""
    assert facts(text) == described


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I love pizza too Mel!", {"Mia loves pizza"}),
        ("I love hiking too Jon 😊", {"Mia loves hiking"}),
        ("I love you too Kai ❤️", {"Mia loves Kai"}),
        ("I love the Too Faced palette", {"Mia loves the Too Faced palette"}),
    ],
)
def test_a_too_before_a_name_of_address_ends_the_object(text: str, described: set[str]) -> None:
    """54c2dc6 kept a too with a word after it, the name the line was said to as well: "Mia loves pizza too Mel",
    and "I love you too Kai" was no fact."""
    assert facts(text) == described


@pytest.mark.parametrize(
    ("text", "described"),
    [
        ("I really like ‘Dune’ a lot", {"Mia likes Dune"}),
        ("I love the movie ‘The Notebook’", {"Mia loves the movie 'The Notebook'"}),
        ("My favorite show is ‘Grey’s Anatomy’", {"Mia's favourite show is Grey's Anatomy"}),
        ("I like Rock’n’roll", {"Mia likes Rock'n'roll"}),
        ("I love Grey’s Anatomy", {"Mia loves Grey's Anatomy"}),
        ("I'm watching ‘Dune’ tomorrow", {"Mia is watching 'Dune' tomorrow (2024-11-05)"}),
    ],
)
def test_a_title_in_curly_single_quotes_is_quoted_whole(text: str, described: set[str]) -> None:
    """Only the closing ’ was made a straight quote, so ‘Dune’ lost it alone: "Mia likes ‘Dune", and a plan
    read "Mia is watching ‘Dune' tomorrow"."""
    assert facts(text) == described


@pytest.mark.parametrize("text", ["I like 'em", "I like ‘em", "I love em"])
def test_em_is_them(text: str) -> None:
    """ "I like 'em" was "Mia likes em": the quote of 'em taken for an opening one, "em" left as a thing liked;
    it is "them", said before, as "I like them" is no fact."""
    assert facts(text) == set()
