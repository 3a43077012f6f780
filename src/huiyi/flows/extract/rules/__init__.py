"""Extraction without an LLM: events, keywords, times, entity mentions and plain first-person facts.

When no LLM endpoint is configured, a fold still becomes memories:

* **Events** come from the fold's own turns. Consecutive messages are grouped into a few segments; a
  new segment starts after a silence of ``gap_minutes``, when a segment is full (``max_turns``
  messages or ``max_chars`` characters), or on a change of topic (a message with two or more content
  words sharing none with a segment of ``min_topic_turns`` (3) or more messages). A segment reads as a
  memory with each speaker named: ``木木说：昨天晚上八点（2023-05-09 20:00）去看了电影。祈煜说：……``.
  Repeated laughter and punctuation are condensed, pure fillers (嗯嗯, 哈哈, ok) are left out of the text
  when the segment says anything else, and long turns are cut with an ellipsis. Every event keeps the
  ids of all its messages.
* **Times**: relative phrases (昨天晚上八点, 下周三, 三天前, last Saturday) are resolved with
  :func:`~huiyi.text.times.find_time_phrases` against the time *of the message that says them*, and
  written after the phrase in the event text. The event's time is the first phrase that does not
  contain its own message's time (今天, 最近 say nothing new), else the time of the first message.
* **Keywords**: TF-IDF over rjieba words with the IDF table ``data/idf_zh.txt`` (the commonest 50k words
  of jieba's ``idf.txt``, MIT; see that file's header). Only nouns, verbs, adjectives, idioms and
  proper nouns of two or more characters count (nouns weigh 1.5, verbs 0.7); stopwords, time words,
  numerals and every name of the people present (speakers, aliases, the agent) are left out. English
  words have no IDF table and are ranked by count, proper nouns first.
* **Entities**: the people of the fold's alias dictionary who speak or are named (by any alias), and
  proper nouns: rjieba's part-of-speech tags ``ns`` (place), ``nt`` (organisation), ``nz`` (other
  proper noun), ``nr`` (person; only when it looks like a name, since jieba tags words such as 过敏 as
  ``nr``), titles in 《》, English capitalised words inside a sentence, and names read by the fact
  patterns (我叫…, a pet's name).
* **Place**: ``在…`` followed by a place-like noun (南京大学图书馆, 家里, 星巴克; a locative word alone,
  地上 or 网上, is none), else the first ``ns`` word after a word that goes somewhere (去, 飞, 刚来, 从) or
  before one that points at a place (边, 那边, 老家): jieba tags common nouns ``ns`` (城市, 礼拜, 午休); in
  English, ``in``/``at`` + a capitalised name.
* **Facts** from plain first-person patterns, attributed to the speaker of the message (never 我 / I):

  ==========================================  ==========================  =================================
  Chinese                                     English                     fact
  ==========================================  ==========================  =================================
  我喜欢… / 我爱… / 我最喜欢…                    I like / love / enjoy …     preference 喜欢 / 爱 (likes/loves)
  我讨厌… / 我不喜欢… / 我受不了…                 I hate / don't like …       preference 讨厌 / 不喜欢
  我最喜欢的X是Y                                my favo(u)rite X is Y       preference 最喜欢的X
  我是…（a noun: 我是一名护士, 我是南京人）           I'm a/an … , I'm from …     attribute 是 / relation 来自
  我叫… / 我的名字是…                            my name is … , call me …     attribute 名字 (+ alias)
  我住在… / 我家在…                              I live in/at …              relation 住在
  我在…工作/上班/实习                             I work at/for/in …, as a …  relation 工作于 / attribute 是
  我在<公司/医院/店…>做/教/卖…, 我在…开了家…         —                           relation 工作于 / 开店于
  (我)下个月去/跳槽到/入职一家…公司                    —                           relation 工作于 (closes the old)
  (我)拿到(…的)offer(，<workplace>)               —                           relation 工作于 (closes the old)
  (我)(今天/已经…)搬到/搬去…了                       I (just) moved to …         relation 住在 (closes the old)
  我开花店的 / 我是卖车的                          —                           attribute 职业是
  我(现在)是律师 (a job: rules.jobs)              I'm a lawyer (a job:        attribute 职业是 / works as
                                                rules.jobs)                 (closes the old job)
  我的生日是… / 我生日在… / 后天是我生日              my birthday is …, tomorrow  attribute 生日 (a relative day
                                                is my birthday              keeps its date)
  我今年…岁 / 我…岁了                            I'm N (years old)           attribute 年龄
  我养了一只…（，叫…）/ 我家有只猫（，它叫…）    I have a dog (named …),     relation 养了 (+ the pet's name)
  / 我家的猫叫…                                 my cat is called …
  我对…过敏                                     I'm allergic to …           attribute 过敏
  我和小雨是室友 / 小雨是我室友 / 小雨和我们是同事    Mia and I are roommates,    relation 室友是 / roommate is
  (同学, 大学同学, 同事, 邻居, 好朋友, 闺蜜…)           Mia is my roommate          (the other, named, is the object)
  陈屿是我男朋友 / 我男朋友叫陈屿 / 我男朋友陈屿…     Jake is my boyfriend        relation 男朋友是 / boyfriend is
  / 我有新男朋友了，叫陈屿 (对象, 女朋友, 未婚夫…;                                  (one at a time: a new partner,
  老公 / 老婆 only with 叫: 我老公彭于晏 is a fan's)                                with any word, closes the old)
  我前男友叫阿杰 / 阿杰是我前任                      —                           relation 前男友是 (a past tie)
  我妹妹叫小雨 / 小雨是我妹妹 / 我妹妹小雨…          Emma is my sister, my       relation 妹妹是 / sister is
  (妈妈, 表哥, 外婆…: many at a time)                sister Emma                 (family, named)
  ==========================================  ==========================  =================================

  Questions (？, 吗), hypotheticals and reported speech (如果我是…, 他说我喜欢…), what a joke takes back
  (我喜欢猫，开玩笑的) and a clause laughter closes (我是亿万富翁哈哈哈, I'm the king of France lol; not
  哈哈，我住在上海) are skipped; in a private chat 你 / you is the other party (我喜欢你 → 木木喜欢祈煜), in a
  group it is skipped. A guess about oneself (我可能是护士, 我好像算是个程序员吧, I might be a nurse) is no fact;
  a possible allergy (我好像对猫毛过敏, I think I'm allergic to peanuts) and a plan with its day said unsure
  (我可能下周一飞大阪) are tentative: the text keeps the hedge (木木好像对猫毛过敏, 木木 may be allergic to peanuts)
  and the confidence is 0.4, below every plain fact's.
* **Forwarded and quoted words** (:mod:`huiyi.text.relayed`: ``[转发]``, ``【聊天记录】``, ``Forwarded from``,
  ``[回复 小林: …]``, WeChat's ``「小林：…」`` over a line of dashes, ``> …`` lines) are someone else's: facts,
  aliases, plans, quits, losses, cancels and group plans are read from the speaker's own words only, and
  the event says ``ajie2转发：…`` or ``ajie2说：…（引用：…）``. In a group, a 复读 (one of the last five lines,
  another member's, repeated word for word) is read as a quote too: ``王一舟引用：我喜欢爬山``.
* **Habits given up** (:mod:`~huiyi.flows.extract.rules.quits`): 我戒烟了, 我不喝咖啡了, 以前喜欢喝咖啡，现在戒
  了，改喝茶了, I quit coffee, I don't drink coffee anymore: a fact of what stopped (and of what replaced it),
  and the speaker's open likes naming it are closed (``valid_to``), as a move closes the old home.
* **A job left** (:mod:`~huiyi.flows.extract.rules.resigns`): 我辞职了, 我从网易离职了, 我把工作辞了, 我被裁员了,
  I quit my job, I got laid off: a fact of the leaving (木木从网易离职了, keyword 工作), and the speaker's open
  workplace facts are closed (those naming the place, where one is named); a trade (木木是护士) stays. 我想辞职,
  差点被裁, 他辞职了 and questions are none.
* **Plans said in English** (:mod:`~huiyi.flows.extract.rules.plans_en`): I'm flying to Osaka next Monday, My
  sister Emma is getting married next Saturday: a plan fact of the speaker or of the one named, dated by the day
  it names, as 我下周一飞大阪 is (:mod:`~huiyi.flows.extract.rules.plans`).
* **A partner parted from** (:mod:`~huiyi.flows.extract.rules.breakups`): Jake and I broke up, I broke up with
  Jake, 我和阿杰分手了, 阿杰把我甩了, 我们分手了 (of the speaker's newest open partner, stored or said earlier in the
  fold; none known, nothing read): a fact (Mia broke up with Jake, 木木和阿杰分手了), and the speaker's open partner
  facts naming him are closed, as an ex named does (我前男友阿杰…). 差点 / 要 / 没分手, a question, and 我和小美掰了
  or 分开了 of someone who is no partner are none.
* **A pet that died** (:mod:`~huiyi.flows.extract.rules.losses`): 豆豆今天走了, 豆豆去世了, Our dog passed away,
  of a pet the speaker named before (stored or earlier in the fold): its pet facts are closed and the death
  is a fact (木木的狗豆豆去世了). 走了 of anyone else (我先走了) or not ending the clause (走丢了) is no death.
* **A pet named after it was told of** (:mod:`~huiyi.flows.extract.rules.pet_names`): 我养了只小猫。… 它叫团子,
  I got a kitten today. … Her name is Mochi: a clause naming "it" right after a pet still nameless (the
  speaker's next words, the agent's question between aside) names that pet, as 我养了一只小猫，叫团子 does.
* **Plans called off** (:mod:`~huiyi.flows.extract.rules.cancels`): 搬家泡汤 / 取消了 / 改到下周六 by the
  speaker, with no subject of its own and no 差点 or question, closes the speaker's open plan facts naming
  the plan's word (the fold flow sets ``valid_to``); a new time named for it after (下周六搬) is a plan fact.
  In English (:mod:`~huiyi.flows.extract.rules.cancels_en`): My flight got cancelled, I moved my dentist
  appointment to Friday, The wedding is now on April 19th close the owner's open plans holding the plan's words
  (in a chat of two, "the wedding" is anyone's told of); a new time still to come is a plan fact.
* **Group plans** (:mod:`~huiyi.flows.extract.rules.gatherings`): in a group, a message that names a time
  still to come and a gathering (大家, 一起, 集合, 团建…) with no 我 of its own is an event of its own,
  dated by the day it names (林晚晴: 周六下午三点大家一起去爬山 → 林晚晴说：周六（2024-11-16）下午三点…).
* **Importance** (0–1) from simple signals: 0.3 to start; +0.2 when a first-person fact was read from
  the segment; +0.15 for emotion words (开心, 难过, 想念, happy, miss…; not 麻烦你 or Miss Li) and for
  missing someone (好想你, 还是很想豆豆: 想 with a pronoun, family or a name the fold knows and nothing after;
  我想吃火锅 wants, 我想他们会来 thinks); +0.1 for a plan (打算, 明天, going to, or a time phrase pointing to
  the future); +0.05 for an exclamation; +0.05 when a place or another named thing is mentioned; capped at
  0.9 (rules are never sure). A segment of fillers only gets 0.1.
  Facts get a confidence of 0.7–0.8 by pattern (identity, the loosest, 0.7).

Everything is deterministic: the same fold gives the same drafts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from huiyi.flows.extract.rules.extractor import RuleExtractor
    from huiyi.flows.extract.rules.roster import Roster

__all__ = ["Roster", "RuleExtractor"]


def __getattr__(name: str) -> Any:
    # loaded when first asked for: the fold flow needs the light roster at import, and the rules' hundreds
    # of patterns cost ~70 ms that `from huiyi import Memory` paid before a fold ever ran (issue 15)
    if name == "RuleExtractor":
        from huiyi.flows.extract.rules.extractor import RuleExtractor

        return RuleExtractor
    if name == "Roster":
        from huiyi.flows.extract.rules.roster import Roster

        return Roster
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
