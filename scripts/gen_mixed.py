#!/usr/bin/env python3
"""A receipts database shaped apart from the demo generator, for the benchmark.

    python3 scripts/gen_mixed.py --out mixed.db --receipts 1000000 --seed 1 \
        [--now 2026-11-29T12:00:00Z] [--summary mixed.planted.json] [--heavy]

Written with the standard library only (sqlite3, json, hashlib), against
assets/schema.sql, as an intake in another language might fill it:

* six forms (scopes), each with its own fields (Japanese field names in one),
  nested values, numbers and floats, and its own time format (RFC 3339 with
  Z or +09:00, with or without milliseconds, SQLite's "YYYY-MM-DD HH:MM:SS");
* free text of 60-240 characters, Japanese or English, composed from many
  templates with names, products, dates and amounts (so bodies rarely repeat);
* a few percent of payloads stored non-canonically (keys unsorted, spaces
  after separators, \\u escapes for non-ASCII, or some of these), each with the
  digest of its canonical text as the contract defines it;
* duplicate groups: exact copies under 1 s, seconds and minutes apart, partial
  copies (about half the fields) and edited copies (a few words, or a few
  Japanese characters, changed), within the window of the group's first copy;
* genuine follow-ups hours later (the same sender, the same or a new text),
  which must never be grouped;
* key conflicts (key_conflicts rows), replays, failed and in-flight receipts,
  bot campaigns (one text from several senders) and filled honeypots, and a
  few rows damaged on purpose (a wrong digest, a time that does not parse, a
  payload that is not an object);
* ids mostly but not strictly in time order (commits race).

Deterministic for a seed. The summary (--summary, JSON) says what was planted,
with the ids of every planted group, so that a report can be checked.
"""

import argparse
import hashlib
import heapq
import json
import random
import sqlite3
import sys
import time
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WINDOW_MS = 600_000
HOUR = 3_600_000

# ---------------------------------------------------------------- words

FAMILY_JA = ["佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村", "小林", "加藤", "吉田", "山田",
             "佐々木", "山口", "松本", "井上", "木村", "林", "斎藤", "清水", "山崎", "森", "池田", "橋本",
             "阿部", "石川", "前田", "藤田", "小川", "岡田", "後藤", "長谷川", "村上", "近藤", "石井", "遠藤"]
FAMILY_ROMAJI = ["sato", "suzuki", "takahashi", "tanaka", "ito", "watanabe", "yamamoto", "nakamura",
                 "kobayashi", "kato", "yoshida", "yamada", "sasaki", "yamaguchi", "matsumoto", "inoue",
                 "kimura", "hayashi", "saito", "shimizu", "yamazaki", "mori", "ikeda", "hashimoto", "abe",
                 "ishikawa", "maeda", "fujita", "ogawa", "okada", "goto", "hasegawa", "murakami", "kondo",
                 "ishii", "endo"]
GIVEN_JA = [("翔太", "shota"), ("美咲", "misaki"), ("大輔", "daisuke"), ("陽子", "yoko"), ("健一", "kenichi"),
            ("さくら", "sakura"), ("拓也", "takuya"), ("真由美", "mayumi"), ("和也", "kazuya"), ("愛", "ai"),
            ("直樹", "naoki"), ("恵", "megumi"), ("誠", "makoto"), ("彩", "aya"), ("亮", "ryo"),
            ("千尋", "chihiro"), ("悠真", "yuma"), ("結子", "yuiko"), ("修", "osamu"), ("花", "hana")]
KANA = {"sato": "サトウ", "suzuki": "スズキ", "takahashi": "タカハシ", "tanaka": "タナカ", "ito": "イトウ"}
FIRST_EN = ["James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David",
            "Elizabeth", "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah",
            "Chris", "Karen", "Daniel", "Nancy", "Matthew", "Lisa", "Anthony", "Priya", "Wei", "Olga",
            "Mateo", "Aisha", "Kenji", "Fatima", "Lars", "Ingrid", "Diego", "Chloe"]
LAST_EN = ["Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez",
           "Martinez", "Hernandez", "Lopez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson",
           "Martin", "Lee", "Thompson", "White", "Harris", "Clark", "Lewis", "Walker", "Young", "Allen",
           "Nguyen", "Okafor", "Schmidt", "Rossi", "Novak", "Kowalski", "Smithson", "Tanaka"]
DOMAINS = ["example.com", "mail.example.jp", "corp.example.co.jp", "example.org", "example.net",
           "docomo.example.ne.jp", "univ.example.ac.jp", "example.co.uk"]
COMPANIES_JA = ["株式会社みどり商事", "有限会社さくら工房", "東和システム株式会社", "北辰物産株式会社",
                "株式会社アオバ企画", "合同会社ひまわり", "大和精機株式会社", "株式会社こもれび",
                "丸山食品株式会社", "株式会社ネクストリンク", "医療法人つばさ会", "一般社団法人ゆうあい"]
COMPANIES_EN = ["Northwind Traders", "Contoso Ltd", "Fabrikam Inc", "Tailspin Toys", "Litware",
                "Adventure Works", "Blue Yonder Airlines", "Proseware", "Wide World Importers",
                "Coho Winery", "Alpine Ski House", "Margie's Travel"]
PRODUCTS_JA = ["加湿器", "電動歯ブラシ", "ワイヤレスイヤホン", "炊飯器", "ノートパソコン", "掃除ロボット",
               "デジタルカメラ", "電気ケトル", "オフィスチェア", "スマートウォッチ", "プリンター", "空気清浄機"]
PRODUCTS_EN = ["air purifier", "standing desk", "USB-C dock", "espresso machine", "router", "webcam",
               "label printer", "smart thermostat", "e-reader", "mechanical keyboard", "NAS drive",
               "projector"]
CITIES_JA = ["札幌", "仙台", "東京", "横浜", "名古屋", "京都", "大阪", "神戸", "広島", "福岡", "那覇", "金沢"]
CITIES_EN = ["Osaka", "London", "Toronto", "Berlin", "Austin", "Lyon", "Seoul", "Sydney", "Denver",
             "Lisbon", "Oslo", "Dublin"]
ROLES_JA = ["営業職", "エンジニア", "デザイナー", "経理", "カスタマーサポート", "人事", "企画職"]

JA_OPEN = ["お世話になっております。", "はじめまして。", "突然のご連絡失礼いたします。", "いつもありがとうございます。",
           "先日はありがとうございました。", "{family}と申します。", "{company}の{family}です。", "こんにちは。"]
JA_BODY = [
    "{date}に注文した{product}がまだ届いておりません。",
    "注文番号{order}の{product}について確認させてください。",
    "{product}の電源が{n}回に一度入らなくなります。",
    "{city}の店舗で購入した{product}を交換していただけますか。",
    "見積もりを{n}部お願いしたく、{date}までにいただけると助かります。",
    "{date}の説明会に{n}名で参加したいと考えています。",
    "{city}から参加する予定ですが、オンライン参加も可能でしょうか。",
    "請求書の金額が{amount}円になっていましたが、{amount2}円の誤りではないでしょうか。",
    "御社の{role}の募集を拝見し、応募いたしました。",
    "前職では{n}年ほど{role}として働いておりました。",
    "{product}の取扱説明書を紛失してしまいました。PDFはありますか。",
    "返品の手続きについて、送料は{amount}円かかりますか。",
    "ログインすると「エラー{code}」と表示されて先に進めません。",
    "先月から{product}の動作が遅く、再起動しても改善しません。",
    "{date}の{time}頃にお電話しましたが、つながりませんでした。",
    "担当の{family}様にお伝えいただけますでしょうか。",
    "予算は{amount}円程度を想定しております。",
    "{n}台まとめて購入した場合の割引はありますか。",
    "配送先を{city}の事務所に変更したいです。",
    "領収書の宛名を「{company}」にしていただけますか。",
    "アンケートの結果、{n}割の社員が導入に賛成しています。",
    "貴社の{product}を社内で{n}台使っておりますが、とても満足しています。",
]
JA_CLOSE = ["よろしくお願いいたします。", "ご確認のほどよろしくお願いします。", "お手数ですがご返信ください。",
            "急ぎではありません。", "以上、よろしくお願いいたします🙏", "ご検討いただけますと幸いです。",
            "折り返しご連絡いただけますか。", ""]
EN_OPEN = ["Hello,", "Hi there,", "Good morning,", "Dear support team,", "To whom it may concern,",
           "Hi, this is {first} from {company}.", "Hello again,", ""]
EN_BODY = [
    "I ordered a {product} on {date_en} and it has not arrived yet.",
    "Order {order} shows as shipped but the tracking page says otherwise.",
    "The {product} turns itself off every {n} minutes or so.",
    "Could you send a quote for {n} units of the {product}?",
    "We would like {n} seats for the session in {city_en} on {date_en}.",
    "Is there an online option for people outside {city_en}?",
    "The invoice says ${amount_en} but we agreed on ${amount2_en}.",
    "I saw the opening for a {role_en} and attached my resume.",
    "I have worked for {n} years as a {role_en} in {city_en}.",
    "The manual for the {product} is missing from the box.",
    "After the last update I get error {code} when I log in.",
    "Our team of {n} people uses the {product} daily and loves it.",
    "Can I change the delivery address to our {city_en} office?",
    "Please put {company} on the receipt instead of my name.",
    "I called at {time} yesterday but nobody picked up.",
    "Is there a discount if we buy {n} of them at once?",
    "The firmware file at C:\\Downloads\\fw_{code}.bin fails to install.",
    "My colleague said the \"pro\" plan includes {n} licenses, is that right?",
    "We are moving to {city_en} next month and need to update our account.",
    "The {product} arrived with a cracked case; photos are attached.",
    "Budget for this project is roughly ${amount_en} for the first year.",
    "Would it be possible to schedule a demo before {date_en}?",
]
EN_CLOSE = ["Thanks!", "Best regards.", "Thank you in advance.", "Cheers,", "Looking forward to your reply.",
            "Kind regards 😊", "Thanks for your help.", ""]
EN_SWAPS = [("yet", "so far"), ("Could", "Would"), ("please", "kindly"), ("quote", "price"),
            ("daily", "every day"), ("loves", "likes"), ("missing", "not included"), ("Thanks!", "Thank you!"),
            ("Best", "Warm"), ("arrived", "came"), ("cracked", "broken")]
JA_INSERTS = ["改めて、", "至急、", "念のため", "再度", "大変恐縮ですが、"]
SPAM_JA = ["【限定】SEO対策で売上{n}倍！今すぐ無料診断をお申し込みください。詳細はこちら http://spam.example/{code}",
           "副業で月{amount}円の収入が可能です。登録は無料、今すぐ http://spam.example/{code} へ。"]
SPAM_EN = ["Boost your rankings {n}x in a week! Free audit for your site today: http://spam.example/{code}",
           "We build backlinks at ${amount_en} per month, guaranteed first page. Reply now: http://spam.example/{code}"]


MONTHS_EN = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
ROLES_EN = ["developer", "designer", "accountant", "support engineer", "sales lead"]
SLOT = {
    "product": lambda r, w: r.choice(PRODUCTS_JA),
    "date": lambda r, w: f"{r.randint(1, 12)}月{r.randint(1, 28)}日",
    "date_en": lambda r, w: f"{r.choice(MONTHS_EN)} {r.randint(1, 28)}",
    "n": lambda r, w: r.randint(2, 48),
    "order": lambda r, w: f"{r.choice('ABCDKMR')}{r.randint(100000, 999999)}",
    "city": lambda r, w: r.choice(CITIES_JA),
    "city_en": lambda r, w: r.choice(CITIES_EN),
    "amount": lambda r, w: f"{r.randint(3, 900) * 1000:,}",
    "amount2": lambda r, w: f"{r.randint(3, 900) * 1000:,}",
    "amount_en": lambda r, w: f"{r.randint(2, 950) * 100:,}",
    "amount2_en": lambda r, w: f"{r.randint(2, 950) * 100:,}",
    "role": lambda r, w: r.choice(ROLES_JA),
    "role_en": lambda r, w: r.choice(ROLES_EN),
    "code": lambda r, w: r.randint(1000, 9999),
    "time": lambda r, w: f"{r.randint(9, 18)}時{r.choice(['', '半'])}",
    "family": lambda r, w: w["family_ja"],
    "first": lambda r, w: w["first_en"],
    "company": lambda r, w: w["company"] or r.choice(COMPANIES_JA if w["ja"] else COMPANIES_EN),
}


class Slots(dict):
    """A template's slots, each drawn when the template names it."""

    def __init__(self, rng, who):
        super().__init__()
        self.r, self.who = rng, who

    def __missing__(self, key):
        return SLOT[key](self.r, self.who)


class Words:
    """Fills templates with names, products, dates and amounts."""

    def __init__(self, rng):
        self.r = rng

    def fill(self, template, who):
        if "{" not in template:
            return template
        return template.format_map(Slots(self.r, who))

    def message(self, ja, who):
        """Free text of 60-240 characters."""
        r = self.r
        target = r.randint(60, 240)
        opens, bodies, closes, sep = (JA_OPEN, JA_BODY, JA_CLOSE, "") if ja else (EN_OPEN, EN_BODY, EN_CLOSE, " ")
        if ja:
            bodies = [b.replace("{product}", r.choice(PRODUCTS_JA)) for b in r.sample(bodies, 6)]
        else:
            bodies = [b.replace("{product}", r.choice(PRODUCTS_EN)) for b in r.sample(bodies, 6)]
        parts = [self.fill(r.choice(opens), who)]
        close = self.fill(r.choice(closes), who)
        for b in bodies:
            s = self.fill(b, who)
            if len(sep.join(parts + [s, close])) > 240:
                break
            parts.append(s)
            if len(sep.join(parts + [close])) >= target:
                break
        parts.append(close)
        text = sep.join(p for p in parts if p)
        if r.random() < 0.3:
            text = text.replace("。", "。\n", 1) if ja else text.replace(". ", ".\n", 1)
        while len(text) < 60:
            text += sep + self.fill(r.choice(bodies), who)
        return text[:240]

    def edited(self, text, ja):
        """The same text with a few words (or Japanese characters) changed."""
        r = self.r
        if ja:
            pos = r.randrange(1, max(2, len(text) - 6))
            if r.random() < 0.5:
                ins = r.choice(JA_INSERTS)
                out = text[:pos] + ins + text[pos:]
            else:
                out = text[:pos] + r.choice("あいうえおかきくけこ") + text[pos + 1:]
            return out[:240] if out != text else text + "。"
        words = text.split(" ")
        for a, b in r.sample(EN_SWAPS, len(EN_SWAPS)):
            if a in words:
                i = words.index(a)
                words[i] = b
                return " ".join(words)
        i = r.randrange(len(words))
        words.insert(i, r.choice(["really", "urgently", "again", "now"]))
        return " ".join(words)[:240]


# ---------------------------------------------------------------- forms

def fmt_z_ms(ms):
    s = time.gmtime(ms // 1000)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (s[0], s[1], s[2], s[3], s[4], s[5], ms % 1000)


def fmt_jst(ms):
    s = time.gmtime(ms // 1000 + 9 * 3600)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03d+09:00" % (s[0], s[1], s[2], s[3], s[4], s[5], ms % 1000)


def fmt_sqlite(ms):
    s = time.gmtime(ms // 1000)
    return "%04d-%02d-%02d %02d:%02d:%02d" % s[:6]


def fmt_sqlite_ms(ms):
    return fmt_sqlite(ms) + ".%03d" % (ms % 1000)


def fmt_z(ms):
    s = time.gmtime(ms // 1000)
    return "%04d-%02d-%02dT%02d:%02d:%02dZ" % s[:6]


class Person:
    __slots__ = ("ja", "family_ja", "family_en", "given_ja", "given_en", "first_en", "last_en", "email",
                 "phone", "company")

    def __init__(self, r, ja):
        self.ja = ja
        fi = r.randrange(len(FAMILY_JA))
        self.family_ja, self.family_en = FAMILY_JA[fi], FAMILY_ROMAJI[fi]
        self.given_ja, self.given_en = r.choice(GIVEN_JA)
        self.first_en, self.last_en = r.choice(FIRST_EN), r.choice(LAST_EN)
        if ja:
            local = f"{self.family_en}.{self.given_en[0]}{r.randint(1, 999)}"
            self.phone = f"0{r.choice('3456789')}0-{r.randint(1000, 9999)}-{r.randint(1000, 9999)}"
            self.company = r.choice(COMPANIES_JA) if r.random() < 0.7 else ""
        else:
            local = f"{self.first_en.lower()}.{self.last_en.lower()}{r.randint(1, 99)}"
            self.phone = f"+1-{r.randint(200, 989)}-555-{r.randint(1000, 9999)}"
            self.company = r.choice(COMPANIES_EN) if r.random() < 0.6 else ""
        self.email = f"{local}@{r.choice(DOMAINS)}"

    def __getitem__(self, k):
        return getattr(self, k)

    def name(self):
        return f"{self.family_ja} {self.given_ja}" if self.ja else f"{self.first_en} {self.last_en}"


class Form:
    """One scope: its share, language mix, keys, time format and fields."""

    def __init__(self, scope, weight, ja, keyed, stamp, build, text_field, honeypot=None):
        self.scope, self.weight, self.ja, self.keyed = scope, weight, ja, keyed
        self.stamp, self.build, self.text_field, self.honeypot = stamp, build, text_field, honeypot


def hexs(r, n):
    return "%0*x" % (n, r.getrandbits(4 * n))


def contact(r, p, w, ms):
    return {"name": p.name(), "name_kana": KANA.get(p.family_en, "ヤマダ") + " " + p.given_en.upper(),
            "email": p.email, "tel": p.phone, "company": p.company,
            "inquiry_type": r.choice(["製品について", "見積もり", "その他", "取材"]),
            "message": w.message(p.ja, p), "privacy_agreed": True,
            "_token": hexs(r, 32), "client_time": fmt_z_ms(ms - r.randint(50, 900))}


def returns(r, p, w, ms):
    items = [{"sku": f"SKU-{r.randint(10000, 99999)}", "qty": r.randint(1, 3)} for _ in range(r.randint(1, 3))]
    return {"order_no": f"A-2026-{r.randint(100000, 999999)}", "name": p.name(), "email": p.email,
            "reason": r.choice(["破損", "サイズ違い", "イメージ違い", "誤配送", "初期不良"]), "items": items,
            "comment": w.message(p.ja, p), "refund_method": r.choice(["card", "bank", "points", None]),
            "csrf_token": hexs(r, 40), "sent_at": fmt_jst(ms - r.randint(20, 400))}


def support(r, p, w, ms):
    return {"first_name": p.first_en, "last_name": p.last_en, "email": p.email,
            "product": r.choice(PRODUCTS_EN), "version": f"{r.randint(1, 5)}.{r.randint(0, 12)}.{r.randint(0, 30)}",
            "severity": r.randint(1, 4), "description": w.message(p.ja, p), "attachments": [],
            "g-recaptcha-response": hexs(r, 64), "session_id": hexs(r, 24),
            "score": round(r.random() * 100, 2) if r.random() > 0.001 else r.choice([1e-07, 1.5e+300, -0.0, 1e16])}


def recruit(r, p, w, ms):
    return {"氏名": p.name(), "フリガナ": KANA.get(p.family_en, "スズキ"), "メールアドレス": p.email,
            "電話番号": p.phone, "希望職種": r.choice(ROLES_JA), "志望動機": w.message(p.ja, p),
            "経験年数": r.randint(0, 30), "nonce": hexs(r, 16)}


def seminar(r, p, w, ms):
    return {"name": p.name(), "email": p.email, "company": p.company, "seats": r.randint(1, 5),
            "session": r.choice(["A", "B", "C"]), "seminar_date": f"2026-12-{r.randint(1, 20):02d}",
            "questions": w.message(p.ja, p) if r.random() < 0.8 else "", "dietary": None, "hp": "",
            "ts": ms // 1000}


def landing(r, p, w, ms):
    return {"name": p.name(), "email": p.email, "phone": p.phone,
            "budget": r.choice([r.randint(10, 500) * 10000, r.randint(10, 500) * 0.5]),
            "message": w.message(p.ja, p), "honeypot": "", "gclid": hexs(r, 20) if r.random() < 0.4 else None,
            "idempotency_key": hexs(r, 12)}


FORMS = [
    Form("acme.jp/contact", 30, 0.8, 0.85, fmt_z_ms, contact, "message"),
    Form("shop.acme.jp/returns", 20, 0.6, 0.9, fmt_jst, returns, "comment"),
    Form("en.acme.com/support", 20, 0.05, 0.7, fmt_sqlite, support, "description"),
    Form("recruit.acme.jp/entry", 8, 0.95, 0.5, fmt_z, recruit, "志望動機"),
    Form("event.acme.jp/seminar", 10, 0.5, 0.0, fmt_sqlite_ms, seminar, "questions", honeypot="hp"),
    Form("lp/ai-seminar", 12, 0.5, 0.8, fmt_z_ms, landing, "message", honeypot="honeypot"),
]

# Fields the fingerprint leaves out (docs/analysis.md): the page's tokens and times, new in
# every copy sent again. ("session", the seminar's choice, is left out too, by
# its name, but stays the same in a copy.)
VOLATILE = {"_token", "client_time", "csrf_token", "sent_at", "g-recaptcha-response", "session_id",
            "nonce", "ts", "gclid", "idempotency_key"}
IGNORED = VOLATILE | {"session", "hp", "honeypot"}


def refresh_volatile(r, form, body, ms):
    """A copy sent again: the page's tokens and times are new, the visitor's fields the same."""
    fresh = form.build(r, Person(r, False), NOWORDS, ms)
    out = dict(body)
    for k in VOLATILE:
        if k in out and k in fresh:
            out[k] = fresh[k]
    return out


class _NoWords:
    def message(self, ja, who):
        return ""


NOWORDS = _NoWords()


# The sender's address: a partial copy keeps it, as both handlers had it.
IDENTITY = {"email", "メールアドレス"}


def visitor_keys(body):
    """The fields a partial copy may leave out: the visitor's own, but the address."""
    return [k for k, v in body.items() if k not in IGNORED and k not in IDENTITY
            and v not in ("", None, [], {})]


# ---------------------------------------------------------------- storage

def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def stored(r, obj, share):
    """(payload as stored, digest of the canonical text, stored non-canonically)"""
    text = canonical(obj)
    digest = hashlib.sha256(text.encode()).hexdigest()
    if r.random() >= share:
        return text, digest, False
    keys = list(obj)
    r.shuffle(keys)
    how = r.randrange(7) + 1  # a non-empty mix of: unsorted, spaces, \u escapes
    shown = {k: obj[k] for k in keys} if how & 1 else dict(sorted(obj.items()))
    seps = (", ", ": ") if how & 2 else (",", ":")
    out = json.dumps(shown, separators=seps, ensure_ascii=bool(how & 4), allow_nan=False)
    if out == text:  # an object with one key and no non-ASCII
        out = json.dumps(shown, separators=(", ", ": "), ensure_ascii=True)
    return out, digest, out != text


class Event:
    __slots__ = ("commit", "seq", "kind", "row", "ref", "record", "slot")

    def __init__(self, commit, seq, kind, row, ref=None, record=None):
        self.commit, self.seq, self.kind, self.row, self.ref, self.record = commit, seq, kind, row, ref, record
        self.slot = None

    def __lt__(self, other):
        return (self.commit, self.seq) < (other.commit, other.seq)


# ---------------------------------------------------------------- scenarios

# Scenario kinds, drawn in turn: (kind, probability)
KINDS = [("single", 0.80), ("group", 0.10), ("follow_up", 0.016), ("conflict", 0.013), ("replay", 0.04),
         ("campaign", 0.002), ("honeypot", 0.004), ("failed", 0.005), ("stuck", 0.0002)]
KIND_CODES = {k: i for i, (k, _) in enumerate(KINDS)}
# --heavy: an intake where a quarter of a million items wait (at 1M): a duplicate
# group in about every third scenario, many conflicts, stuck receipts and bot
# campaigns, and one damaged row in a hundred.
HEAVY = {"single": 0.48, "group": 0.37, "conflict": 0.03, "campaign": 0.01, "stuck": 0.025}


def draw_kinds(r, n_receipts, weights):
    """Pass one: the scenarios' kinds and sizes, until they make n_receipts receipts."""
    cum = []
    acc = 0.0
    for p in weights:
        acc += p
        cum.append(acc)
    kinds, sizes = bytearray(), bytearray()
    total = 0
    while total < n_receipts:
        x = r.random() * acc
        k = next(i for i, c in enumerate(cum) if x < c)
        name = KINDS[k][0]
        size = {"group": r.choice([2, 2, 2, 3, 3, 4]), "follow_up": 2, "campaign": r.randint(3, 6)}.get(name, 1)
        if total + size > n_receipts:
            k, size = KIND_CODES["single"], 1
        kinds.append(k)
        sizes.append(size)
        total += size
    return kinds, sizes


class Generator:
    def __init__(self, args):
        self.r = random.Random(args.seed)
        self.words = Words(self.r)
        self.now = int(datetime.fromisoformat(args.now.replace("Z", "+00:00")).timestamp() * 1000)
        self.end = self.now - 15 * 60_000
        self.start = self.end - int(args.days * 86_400_000)
        self.noncanonical_share = args.noncanonical
        self.heavy = args.heavy
        self.heap = []
        self.seq = 0
        self.next_id = 1
        self.weights = [f.weight for f in FORMS]
        self.batch, self.conflict_rows, self.replay_rows = [], [], []
        self.summary = {"receipts": 0, "groups": [], "group_members": {"exact": 0, "partial": 0, "edited": 0},
                        "group_classes": {"simultaneous": 0, "seconds": 0, "minutes": 0},
                        "follow_ups": [], "conflicts": 0, "key_conflict_rows": 0, "replays": 0, "stuck": [],
                        "in_flight_fresh": [], "failed": 0, "bots": [], "damaged": [], "noncanonical": 0,
                        "noncanonical_conflicts": 0, "scopes": {}}

    # -- events

    def push(self, at, kind, row, ref=None, record=None, jitter=True):
        commit = at + (int(self.r.expovariate(1 / 30)) if jitter else 0)
        self.seq += 1
        ev = Event(commit, self.seq, kind, row, ref, record)
        heapq.heappush(self.heap, ev)
        return ev

    def receipt(self, form, at, body, key, state="completed", record=None, canonical_share=None):
        share = self.noncanonical_share if canonical_share is None else canonical_share
        payload, digest, nc = stored(self.r, body, share)
        stamp = form.stamp(at)
        response = None
        updated = None
        if state == "completed":
            updated = form.stamp(at + self.r.randint(30, 2500))
            response = '{"status":"accepted","receipt":"R%d"}' % self.r.randint(10 ** 7, 10 ** 8)
        elif state == "failed":
            updated = form.stamp(at + self.r.randint(100, 30_000))
            response = '{"status":"error","code":502}'
        row = [form.scope, key, digest, payload, state, response, stamp, updated, nc]
        return self.push(at, "receipt", row, record=record)

    def key_for(self, form):
        if self.r.random() >= form.keyed:
            return None
        r = self.r
        return r.choice([f"k_{hexs(r, 20)}", f"{hexs(r, 8)}-{hexs(r, 4)}-{hexs(r, 12)}", f"req{r.getrandbits(64)}"])

    def flush_until(self, t):
        heap = self.heap
        while heap and heap[0].commit < t:
            self.insert(heapq.heappop(heap))

    def insert(self, ev):
        if ev.kind == "receipt":
            rid = self.next_id
            self.next_id += 1
            ev.slot = rid
            scope, key, digest, payload, state, response, stamp, updated, nc = ev.row
            self.batch.append((rid, scope, key, digest, payload, state, response, stamp, updated))
            s = self.summary
            s["receipts"] += 1
            s["noncanonical"] += nc
            s["scopes"][scope] = s["scopes"].get(scope, 0) + 1
            if ev.record is not None:
                ev.record(rid)
        elif ev.kind == "conflict":
            self.conflict_rows.append((ev.ref.slot, *ev.row))
        elif ev.kind == "replay":
            self.replay_rows.append((ev.ref.slot, ev.row))
        if len(self.batch) >= 20_000:
            self.write()

    # -- scenarios

    def scenario(self, kind, size, at):
        r = self.r
        s = self.summary
        form = FORMS[r.choices(range(len(FORMS)), self.weights)[0]]
        ja = r.random() < form.ja
        person = Person(r, ja)
        body = form.build(r, person, self.words, at)
        if kind == "campaign":
            return self.campaign(form, size, at)
        if kind == "honeypot" and form.honeypot:
            body[form.honeypot] = "http://spam.example/%d" % r.randint(1, 10 ** 6)
            self.receipt(form, at, body, self.key_for(form), record=s["bots"].append)
            return
        if kind == "failed":
            s["failed"] += 1
            self.receipt(form, at, body, self.key_for(form), state="failed")
            return
        if kind == "stuck":
            self.receipt(form, at, body, self.key_for(form), state="in_flight", record=s["stuck"].append)
            return
        if kind == "group":
            return self.group(form, ja, body, size, at)
        if kind == "follow_up":
            return self.follow_up(form, ja, person, body, at)
        key = self.key_for(form)
        if kind == "conflict" and key is None:
            key = f"k_{hexs(r, 20)}"
        ev = self.receipt(form, at, body, key)
        if kind == "conflict":
            s["conflicts"] += 1
            for _ in range(r.choice([1, 1, 1, 2])):
                other = dict(body)
                field = form.text_field if other.get(form.text_field) else "email"
                other[field] = self.words.edited(other[field], ja) if field == form.text_field else "x" + other[field]
                other = refresh_volatile(r, form, other, at)
                payload, digest, nc = stored(r, other, self.noncanonical_share)
                s["key_conflict_rows"] += 1
                s["noncanonical_conflicts"] += nc
                when = at + r.randint(5_000, WINDOW_MS)
                self.push(when, "conflict", (digest, payload, form.stamp(when)), ref=ev)
        elif kind == "replay" and key is not None:
            for _ in range(r.randint(1, 3)):
                when = at + r.randint(1_000, 300_000)
                s["replays"] += 1
                self.push(when, "replay", form.stamp(when), ref=ev)

    def group(self, form, ja, body, size, at):
        r = self.r
        s = self.summary
        ids = []
        s["groups"].append(ids)
        self.receipt(form, at, body, self.key_for(form), record=ids.append)
        t = at
        largest = 0
        for _ in range(size - 1):
            how = r.choices(["exact", "partial", "edited"], [0.55, 0.2, 0.25])[0]
            gap_class = r.choice(["simultaneous", "seconds", "minutes"])
            if how == "partial":
                gap_class = r.choice(["simultaneous", "simultaneous", "seconds"])
            budget = at + WINDOW_MS - 30_000 - t  # every copy within the window of the first
            gap = {"simultaneous": r.randint(40, 950), "seconds": r.randint(1_000, 59_000),
                   "minutes": r.randint(60_000, 360_000)}[gap_class]
            gap = max(40, min(gap, budget))
            t += gap
            largest = max(largest, gap)
            copy = refresh_volatile(r, form, body, t)
            if how == "partial":
                keys = visitor_keys(copy)
                for k in r.sample(keys, max(1, len(keys) // 2)):
                    if r.random() < 0.5:
                        del copy[k]
                    else:
                        copy[k] = ""
            elif how == "edited":
                if not copy.get(form.text_field):
                    how = "exact"
                else:
                    copy[form.text_field] = self.words.edited(copy[form.text_field], ja)
            s["group_members"][how] += 1
            self.receipt(form, t, copy, self.key_for(form), record=ids.append)
        cls = "simultaneous" if largest < 1000 else "seconds" if largest < 60_000 else "minutes"
        s["group_classes"][cls] += 1

    def follow_up(self, form, ja, person, body, at):
        """The same sender hours later: the same fields again, or a new text."""
        r = self.r
        gap = r.randint(2 * HOUR, 12 * HOUR)
        first = at - gap if at - gap > self.start else at
        later = dict(body) if r.random() < 0.5 else form.build(r, person, self.words, first + gap)
        later = refresh_volatile(r, form, later, first + gap)
        pair = []
        self.summary["follow_ups"].append(pair)
        self.receipt(form, first, body, self.key_for(form), record=pair.append)
        self.receipt(form, first + gap, later, self.key_for(form), record=pair.append)

    def campaign(self, form, size, at):
        """One text from several senders within a few minutes."""
        r = self.r
        ja = r.random() < 0.5
        text = self.words.fill(r.choice(SPAM_JA if ja else SPAM_EN), Person(r, ja))
        t = at
        for _ in range(size):
            body = form.build(r, Person(r, r.random() < 0.5), NOWORDS, t)
            body[form.text_field] = text
            self.receipt(form, t, body, self.key_for(form), record=self.summary["bots"].append)
            t += r.randint(2_000, 90_000)

    def damaged(self, at, reason):
        r = self.r
        form = FORMS[0]
        body = form.build(r, Person(r, True), self.words, at)
        text = canonical(body)
        digest = hashlib.sha256(text.encode()).hexdigest()
        stamp = form.stamp(at)
        if reason == "digest":
            digest = hexs(r, 64)
        elif reason == "time":
            stamp = "20261301 25:61"
        else:
            text = text[: len(text) // 2]
        rec = self.summary["damaged"]
        self.push(at, "receipt", [form.scope, None, digest, text, "completed", None, stamp, None, False],
                  record=lambda rid: rec.append([rid, reason]))

    # -- the run

    def run(self, n, out):
        self.conn = sqlite3.connect(out, isolation_level=None)
        self.conn.executescript((REPO / "assets/schema.sql").read_text())
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=OFF")
        self.conn.execute("BEGIN")
        r = self.r
        share = 100 if self.heavy else 200_000
        damaged = [("digest", "time", "payload")[i % 3] for i in range(3 + n // share)]
        fresh = 3
        weights = [HEAVY.get(k, p) if self.heavy else p for k, p in KINDS]
        kinds, sizes = draw_kinds(r, n - len(damaged) - fresh, weights)
        m = len(kinds)
        span = self.end - self.start
        every = max(1, m // (len(damaged) + 1))
        lookback = 12 * HOUR + 60_000
        for i in range(m):
            at = self.start + int(span * (i + r.random()) / m)
            self.flush_until(at - lookback)
            self.scenario(KINDS[kinds[i]][0], sizes[i], at)
            if i % every == every // 2 and damaged:
                self.damaged(at + 1, damaged.pop())
        for j in range(fresh):  # in flight, younger than --stuck-after: not stuck
            at = self.now - r.randint(20_000, 200_000)
            form = FORMS[j % len(FORMS)]
            body = form.build(r, Person(r, j % 2 == 0), self.words, at)
            self.receipt(form, at, body, None, state="in_flight", record=self.summary["in_flight_fresh"].append)
        self.flush_until(float("inf"))
        self.write()
        self.conn.execute("COMMIT")
        self.conn.close()
        return self.summary

    def write(self):
        c = self.conn
        c.executemany("INSERT INTO receipts (id, scope, request_key, digest, payload, state, response, "
                      "created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)", self.batch)
        c.executemany("INSERT INTO key_conflicts (receipt_id, digest, payload, received_at) VALUES (?,?,?,?)",
                      self.conflict_rows)
        c.executemany("INSERT INTO replays (receipt_id, received_at) VALUES (?,?)", self.replay_rows)
        self.batch, self.conflict_rows, self.replay_rows = [], [], []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--receipts", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--now", default="2026-11-29T12:00:00Z")
    ap.add_argument("--days", type=float, default=21.0, help="the span of the receipts' times (default 21)")
    ap.add_argument("--noncanonical", type=float, default=0.03,
                    help="share of payloads stored non-canonically (default 0.03)")
    ap.add_argument("--summary", help="write what was planted here (JSON)")
    ap.add_argument("--heavy", action="store_true",
                    help="the heavy-duplicate shape: about 250k items waiting at 1M receipts")
    args = ap.parse_args()
    out = Path(args.out)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{out}{suffix}").unlink(missing_ok=True)
    t0 = time.perf_counter()
    summary = Generator(args).run(args.receipts, str(out))
    s = summary
    s["seconds"] = round(time.perf_counter() - t0, 1)
    s["seed"], s["now"] = args.seed, args.now
    print(f"planted {len(s['groups'])} duplicate groups ({s['group_members']}), {len(s['follow_ups'])} "
          f"follow-ups hours later, {s['conflicts']} conflicts, {len(s['stuck'])} stuck, {len(s['bots'])} bot "
          f"receipts, {len(s['damaged'])} damaged rows, {s['noncanonical']} non-canonical payloads among "
          f"{s['receipts']} receipts in {len(s['scopes'])} scopes ({s['seconds']} s)", file=sys.stderr)
    if args.summary:
        Path(args.summary).write_text(json.dumps(s, ensure_ascii=False, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
