"""The names set (data/names/): English–Chinese sentence pairs that hold names, for measuring whether a
translation keeps them (`evaluation.names`, `benchmarks/names.py`, the release rule).

    python scripts/corpora.py names-set --out data/names

Names of four kinds, each written in its usual form on both sides: Chinese people in pinyin (the most
common full names in China, and the textbook pair Li Lei and Han Meimei), Chinese places (cities and
provinces), places abroad, and common Western given names with their usual Chinese transliterations
(alternatives separated by |). Tom, Mary, John, Boston, London and Tokyo are left out: they are the names
the bundled Tatoeba training split holds most often. Each name stands in three sentences made from
templates written for this set; the dev and test files share neither a name nor a template, so a rule
chosen on dev is decided on names and sentences it never saw. Deterministic: the same command writes the
same files. Columns: en, zh, the names the pair holds (`English|English2=中文|中文2; ...`: every form
that is right) and their kinds (person-cn, person-west, place-cn, place-abroad).
"""

from __future__ import annotations

from pathlib import Path

# (English, Chinese) — the first Chinese form is the reference's; "|" adds forms that are also right
PEOPLE_CN = {
    "test": ["Zhang Wei=张伟", "Wang Fang=王芳", "Li Na=李娜", "Liu Yang=刘洋", "Chen Jing=陈静", "Li Lei=李雷",
             "Han Meimei=韩梅梅", "Wang Lei=王磊", "Yang Fan=杨帆", "Zhao Min=赵敏", "Huang Yong=黄勇", "Zhou Jie=周杰",
             "Wu Jun=吴军", "Xu Ming=徐明", "Sun Li=孙丽", "Ma Chao=马超", "Zhu Lin=朱琳", "Guo Qiang=郭强",
             "Lin Feng=林峰", "Gao Yan=高燕"],
    "dev": ["Wang Wei=王伟", "Li Jing=李静", "Zhang Min=张敏", "Liu Wei=刘伟", "Wang Xiuying=王秀英",
            "Li Qiang=李强", "Chen Ming=陈明", "Yang Yang=杨洋", "Zhao Lei=赵雷", "Huang Lei=黄磊", "Zhou Li=周丽",
            "Wu Fang=吴芳"],
}
PLACES_CN = {
    "test": ["Chengdu=成都", "Xi'an=西安", "Hangzhou=杭州", "Beijing=北京", "Shanghai=上海", "Guangzhou=广州",
             "Shenzhen=深圳", "Nanjing=南京", "Wuhan=武汉", "Chongqing=重庆", "Tianjin=天津", "Suzhou=苏州",
             "Harbin=哈尔滨", "Kunming=昆明", "Xiamen=厦门", "Qingdao=青岛", "Lhasa=拉萨", "Guilin=桂林",
             "Sichuan=四川", "Yunnan=云南"],
    "dev": ["Changsha=长沙", "Zhengzhou=郑州", "Dalian=大连", "Shenyang=沈阳", "Hefei=合肥", "Nanning=南宁",
            "Fuzhou=福州", "Jinan=济南", "Taiyuan=太原", "Lanzhou=兰州", "Guangdong=广东", "Zhejiang=浙江"],
}
PLACES_ABROAD = {
    "test": ["Paris=巴黎", "New York=纽约", "Berlin=柏林", "Moscow=莫斯科", "Sydney=悉尼", "Rome=罗马",
             "Madrid=马德里", "Seoul=首尔|汉城", "Toronto=多伦多", "Singapore=新加坡", "Cairo=开罗", "Vienna=维也纳",
             "Amsterdam=阿姆斯特丹"],
    "dev": ["Chicago=芝加哥", "Los Angeles=洛杉矶", "Bangkok=曼谷", "Dubai=迪拜", "Athens=雅典", "Lisbon=里斯本"],
}
PEOPLE_WEST = {
    "test": ["Jack=杰克", "Lucy=露西", "Mike=迈克|麦克", "Alice=爱丽丝|艾丽斯", "David=大卫|戴维", "Emma=艾玛|爱玛",
             "James=詹姆斯|詹姆士", "Michael=迈克尔", "Sarah=莎拉|萨拉", "Peter=彼得", "Anna=安娜", "Paul=保罗",
             "Linda=琳达", "Kate=凯特", "Bob=鲍勃|鲍伯", "Lily=莉莉|丽丽", "Daniel=丹尼尔", "Sophie=苏菲|索菲",
             "Kevin=凯文", "Helen=海伦"],
    "dev": ["Jim=吉姆", "Bill=比尔", "Nancy=南希", "Frank=弗兰克", "Susan=苏珊", "George=乔治", "Jenny=珍妮",
            "Emily=艾米丽|埃米莉"],
}
# {P} a person, {Q} a second person, {L} a place
TEMPLATES = {
    "test": [
        ("{P} lives in {L}.", "{P}住在{L}。"),
        ("{P} is my teacher.", "{P}是我的老师。"),
        ("I was born in {L}.", "我出生在{L}。"),
        ("{P} and {Q} are old friends.", "{P}和{Q}是老朋友。"),
        ("We visited {L} last summer.", "我们去年夏天去了{L}。"),
        ("Have you ever been to {L}?", "你去过{L}吗？"),
        ("{P} is going to {L} tomorrow.", "{P}明天要去{L}。"),
        ("My colleague {P} speaks three languages.", "我的同事{P}会说三种语言。"),
        ("{L} is famous for its food.", "{L}以美食闻名。"),
        ("{P} called me yesterday evening.", "{P}昨天晚上给我打了电话。"),
        ("I met {P} in {L}.", "我在{L}遇到了{P}。"),
        ("Is {P} coming to the party?", "{P}会来参加聚会吗？"),
        ("The flight to {L} was delayed.", "去{L}的航班延误了。"),
        ("{P}'s sister works in a hospital.", "{P}的妹妹在医院工作。"),
        ("How far is it from here to {L}?", "从这里到{L}有多远？"),
        ("Please give this book to {P}.", "请把这本书交给{P}。"),
    ],
    "dev": [
        ("{P} works in {L}.", "{P}在{L}工作。"),
        ("This is my friend {P}.", "这是我的朋友{P}。"),
        ("I like {L} very much.", "我很喜欢{L}。"),
        ("Where does {P} live?", "{P}住在哪里？"),
        ("The train to {L} leaves at eight.", "去{L}的火车八点出发。"),
        ("{P} and I study together.", "我和{P}一起学习。"),
        ("My parents live in {L}.", "我父母住在{L}。"),
        ("Did {P} send you an email?", "{P}给你发电子邮件了吗？"),
    ],
}
PER_NAME = 3  # sentences in which each name stands


def parse(entry: str, kind: str) -> tuple[str, list[str], list[str], str]:
    """(English, its forms, Chinese forms, kind); a Chinese person's name is right in either order
    (Zhang Wei, Wei Zhang), Xi'an also as Xian."""
    en, _, zh = entry.partition("=")
    forms = [en]
    if kind == "person-cn":
        forms.append(" ".join(reversed(en.split())))
    if "'" in en:
        forms.append(en.replace("'", ""))
    return en, forms, zh.split("|"), kind


def sentences(split: str) -> list[tuple[str, str, str, str]]:
    """(en, zh, names, kinds) rows: each name of the split in PER_NAME templates of its kind, in turn; a
    template with a second slot takes a name of the other pool (a person with a place) or the next person,
    so every pair's names are all of the split. Chinese and Western people alternate, so a sentence with
    two people pairs the kinds."""
    chinese = [parse(e, "person-cn") for e in PEOPLE_CN[split]]
    western = [parse(e, "person-west") for e in PEOPLE_WEST[split]]
    people = [p for pair in zip(chinese, western) for p in pair]
    people += chinese[len(people) // 2:] + western[len(people) // 2:]
    places = [parse(e, "place-cn") for e in PLACES_CN[split]] + [parse(e, "place-abroad") for e in PLACES_ABROAD[split]]
    with_person = [t for t in TEMPLATES[split] if "{P}" in t[0]]
    with_place = [t for t in TEMPLATES[split] if "{L}" in t[0] and "{P}" not in t[0]]
    rows, turn = [], 0
    for pool, templates in ((people, with_person), (places, with_place)):
        for index, name in enumerate(pool):
            for k in range(PER_NAME):
                en_t, zh_t = templates[(index * PER_NAME + k) % len(templates)]
                names = [name]
                if "{L}" in en_t and "{P}" in en_t:
                    names.append(places[turn % len(places)])
                    turn += 1
                if "{Q}" in en_t:
                    names.append(people[(index + 1 + k) % len(people)])
                slots = ["P", "L"] if "{L}" in en_t and "{P}" in en_t else ["P" if "{P}" in en_t else "L", "Q"]
                en = en_t.format(**{slot: n[0] for slot, n in zip(slots, names)})
                zh = zh_t.format(**{slot: n[2][0] for slot, n in zip(slots, names)})
                rows.append((en, zh, "; ".join(f"{'|'.join(n[1])}={'|'.join(n[2])}" for n in names),
                             "; ".join(n[3] for n in names)))
    return list(dict.fromkeys(rows))


def write(out: Path) -> dict[str, int]:
    """<out>/dev.tsv and <out>/test.tsv; returns each file's number of pairs."""
    out.mkdir(parents=True, exist_ok=True)
    counts = {}
    for split in ("dev", "test"):
        rows = sentences(split)
        (out / f"{split}.tsv").write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
        counts[split] = len(rows)
    return counts
