#!/usr/bin/env python3
"""Write the benchmark corpus: a deterministic mix of text a tokenizer meets.

    bench/gen_corpus.py [-o FILE] [--size BYTES] [--seed N] [--kind KIND]

The corpus is built from small word lists written here and from syllables
put together at random (so that many pieces are new to any piece cache), all
driven by one seeded generator.  Only random.Random.random() is used, whose
sequence for a given seed Python documents as reproducible, so the same seed
gives the same bytes on every machine.  No network, no input files.

Rough share of the output's bytes by kind of block:
    English prose, markdown           ~30 %
    source code (C, Python, JS, JSON) ~30 %
    numbers, tables, logs              ~8 %
    other scripts                     ~27 %  (Cyrillic, Greek, Arabic,
        Hebrew, Devanagari, Chinese, Japanese, Korean, Thai, accented Latin)
    emoji, whitespace oddities, long runs (base64, digits, rulers) ~5 %

Every output is valid UTF-8.  Characters are picked from old Unicode versions
so that any tokenizer's Unicode tables agree on their classes.
"""

import argparse
import bisect
import os
import random
import sys

DEFAULT_SEED = 20250801
DEFAULT_SIZE = 20 * 1024 * 1024

EN = """the of and to a in is it you that he was for on are with as I his they
be at one have this from or had by not word but what some we can out other were
all there when up use your how said an each she which do their time if will way
about many then them write would like so these her long make thing see him two
has look more day could go come did number sound no most people my over know
water than call first who may down side been now find any new work part take
get place made live where after back little only round man year came show every
good me give our under name very through just form sentence great think say
help low line differ turn cause much mean before move right boy old too same
tell does set three want air well also play small end put home read hand port
large spell add even land here must big high such follow act why ask men change
went light kind off need house picture try us again animal point mother world
near build self earth father head stand own page should country found answer
school grow study still learn plant cover food sun four between state keep eye
never last let thought city tree cross farm hard start might story saw far sea
draw left late run while press close night real life few north open seem
together next white children begin got walk example ease paper group always
music those both mark often letter until mile river car feet care second book
carry took science eat room friend began idea fish mountain stop once base hear
horse cut sure watch color face wood main enough plain girl usual young ready
above ever red list though feel talk bird soon body dog family direct pose
leave song measure door product black short numeral class wind question happen
complete ship area half rock order fire south problem piece told knew pass
since top whole king space heard best hour better true during hundred five
remember step early hold west ground interest reach fast verb sing listen six
table travel less morning ten simple several vowel toward war lay against
pattern slow center love person money serve appear road map rain rule govern
pull cold notice voice unit power town fine certain fly fall lead cry dark
machine note wait plan figure star box noun field rest correct able pound done
beauty drive stood contain front teach week final gave green oh quick develop
ocean warm free minute strong special mind behind clear tail produce fact
street inch multiply nothing course stay wheel full force blue object decide
surface deep moon island foot system busy test record boat common gold possible
plane stead dry wonder laugh thousand ago ran check game shape equate hot miss
brought heat snow tire bring yes distant fill east paint language among
tokenizer encoder decoder vocabulary benchmark throughput latency compiler
kernel memory buffer allocation function variable parameter structure pointer
network server client request response protocol message channel analysis
""".split()

CONTRACTIONS = [
    "don't", "it's", "we're", "I'll", "they've", "he'd", "I'm", "can't",
    "won't", "she's", "you're", "that's", "there's", "we'll", "you'd",
    "DON'T", "IT'S", "WE'RE", "I'LL", "THEY'VE", "Isn't", "Didn't",
    "couldn't", "wouldn't", "John's", "NASA's", "o'clock", "rock'n'roll",
]

CODE_PARTS = """get set is has make new init free open close read write parse
emit load save find add remove push pop peek next prev first last count size
len buf buffer data node tree list map table key value item entry token piece
rank merge byte bytes text str name path file line col pos offset index idx
start end begin stop limit max min sum total result error err status flag mode
state ctx config opts args argv env user id type kind class obj ref ptr handle
cache queue heap stack frame block chunk page slot bucket hash seed round
encode decode render print format scan match split join trim lower upper
""".split()

C_TYPES = ["int", "size_t", "char *", "const char *", "unsigned", "long",
           "uint32_t", "uint8_t *", "double", "struct hm_buf *", "bool",
           "ssize_t", "int64_t", "void *"]

RU = """и в не на я быть он с что а по это она этот к но они мы как из у
который то за свой весь год от так о для ты же все тот мочь вы человек такой
его сказать только или ещё бы себя один уже до время если сам когда другой вот
говорить наш мой знать стать при чтобы дело жизнь кто первый очень два день её
новый рука даже во со раз где там под можно ну какой после их работа без самый
потом надо хотеть ли слово идти большой должен место иметь ничто программа
данные система компьютер сеть язык город страна история книга вопрос ответ
Москва Россия Пётр Иван Наталья сегодня завтра вчера хорошо спасибо пожалуйста
""".split()

EL = """και το η ο να σε με για από που τα του της την είναι δεν θα στο ένα
μια αυτό αλλά όπως πολύ όταν μόνο χρόνια σήμερα ελληνικά γλώσσα κόσμος
άνθρωπος ζωή ημέρα νύχτα θάλασσα ήλιος σπίτι δρόμος πόλη χώρα ιστορία
πρόγραμμα υπολογιστής Αθήνα Ελλάδα ευχαριστώ καλημέρα γεια σου φίλος νερό
ψωμί αγάπη μάθημα δάσκαλος βιβλίο εργασία σύστημα δίκτυο ΑΘΗΝΑ ΕΛΛΑΔΑ
""".split()

AR = """في من على أن إلى هذا التي الذي عن مع كان هذه لا ما هو قد كل بين بعد
ذلك عند أو لم حتى إذا العربية اللغة الكتاب المدرسة الطالب العالم الحياة
اليوم السلام عليكم شكرا مرحبا بيت مدينة بلد تاريخ علم الحاسوب البرنامج
الشبكة القاهرة الرياض محمد أحمد فاطمة كتب يكتب مكتبة جميل كبير صغير جديد
""".split()

HE = """של את על לא הוא זה עם כל אני גם היא מה או אם יש בין אבל רק היה כי
עברית שפה ספר בית עיר ארץ שלום תודה יום לילה מים אדם עולם זמן דבר חיים
ירושלים תל אביב מחשב תוכנה רשת ילד ילדה אהבה בוקר טוב ערב
""".split()

HI = """का के की है में और से को एक यह पर भी नहीं हैं था कि वह तो हो जो कर
ही लिए साथ अपने किया गया हिन्दी भाषा भारत नमस्ते धन्यवाद पानी दुनिया
समय जीवन विद्यालय पुस्तक सरकार विकास प्रधानमंत्री स्वतंत्रता दिल्ली मुंबई
कंप्यूटर प्रोग्राम शिक्षा विज्ञान संस्कृति परिवार बच्चे घर काम दिन रात
""".split()

HANZI = ("的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下"
         "以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作"
         "当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分"
         "将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定"
         "女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平"
         "真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比"
         "住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反"
         "合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它"
         "许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指"
         "思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办"
         "运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基")

ZH_WORDS = """中国 北京 上海 我们 他们 今天 明天 时间 问题 工作 学生 老师 电脑
程序 数据 系统 网络 语言 文化 历史 经济 发展 社会 世界 国家 人民 朋友 你好
谢谢 再见 中文 汉字 计算机 人工智能 编码器 解码器 标记 速度 测试""".split()

KANA_H = ("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめも"
          "やゆよらりるれろわをんがぎぐげござじずぜぞだぢづでどばびぶべぼぱぴぷぺぽ")
KANA_SMALL = "ゃゅょっ"
JA_WORDS = """コンピュータ データ プログラム システム ネットワーク サーバー
ファイル テスト トークン エンコード 東京 日本 日本語 今日 明日 学校 先生
ありがとう こんにちは すみません おはよう 大丈夫 仕事 時間 電車 会社""".split()
JA_PARTICLES = "は が を に で と の も から まで へ や".split()

KO_WORDS = """안녕하세요 감사합니다 한국어 사람 시간 세계 컴퓨터 프로그램 학교
사랑 오늘 내일 우리 그리고 하지만 있다 없다 것 수 이 그 저 서울 대한민국
데이터 네트워크 시스템 문제 생각 말 일 집 친구""".split()

TH_WORDS = """การ ที่ ของ และ ใน เป็น มี ได้ ไม่ จะ ให้ ว่า ภาษาไทย ประเทศ
สวัสดี ขอบคุณ กรุงเทพ คอมพิวเตอร์ โปรแกรม ข้อมูล วันนี้ พรุ่งนี้ เวลา
คน บ้าน น้ำ อาหาร""".split()

LATIN_X = """été café naïve über Straße Größe mañana año corazón ação não São
Paulo Łódź żółć Việt Nam tiếng Đà Nẵng français déjà vu Ærøskøbing smörgåsbord
Ångström İstanbul ağaç şehir Čeština příliš žluťoučký kůň úpěl ďábelské ódy
Zürich Köln Müller Ørsted œuvre façade résumé piñata jalapeño""".split()

EMOJI = ["😀", "😂", "👍", "❤️", "🎉", "🚀", "🔥", "✅", "❌", "⚠️", "🙏",
         "👨‍👩‍👧", "👩‍💻", "👍🏽", "🇫🇷", "🇯🇵", "🇧🇷", "😅", "🤔", "💡",
         "📦", "🐍", "🦀", "☕", "✨", "🌍", "👀", "💯", "🧪", "⭐"]

ODD_SPACES = ["\u00a0", "\u3000", "\u2003", "\u2009", "\u202f", "\u2028",
              "\u0085", "\u000b", "\u000c"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed).random
        self.zipf = {}

    def n(self, lo, hi):
        """Integer in [lo, hi]."""
        return lo + int(self.r() * (hi - lo + 1))

    def pick(self, seq):
        return seq[int(self.r() * len(seq))]

    def chance(self, p):
        return self.r() < p

    def zpick(self, seq):
        """Pick with Zipf-like weights: early entries are common."""
        cum = self.zipf.get(id(seq))
        if cum is None:
            cum, t = [], 0.0
            for i in range(len(seq)):
                t += 1.0 / (i + 1.5)
                cum.append(t)
            self.zipf[id(seq)] = cum
        return seq[bisect.bisect_left(cum, self.r() * cum[-1])]

    def syllables(self, cons, vows, lo, hi):
        return "".join(self.pick(cons) + self.pick(vows)
                       for _ in range(self.n(lo, hi)))

    # ---- English -------------------------------------------------------

    def en_word(self):
        x = self.r()
        if x < 0.86:
            return self.zpick(EN)
        if x < 0.91:
            return self.pick(CONTRACTIONS)
        # Unseen words: the long tail that a piece cache cannot help with.
        w = self.syllables("bcdfghjklmnprstvwz", "aeiouy", 2, 5)
        if self.chance(0.2):
            w += self.pick(["ing", "ed", "tion", "ness", "ly", "s"])
        return w

    def en_sentence(self):
        words = [self.en_word() for _ in range(self.n(4, 24))]
        words[0] = words[0][:1].upper() + words[0][1:]
        if self.chance(0.3):
            words[self.n(1, len(words) - 1)] += ","
        if self.chance(0.05):
            i = self.n(0, len(words) - 1)
            words[i] = words[i].upper()
        if self.chance(0.08):
            i = self.n(0, len(words) - 1)
            words[i] = "\u201c" + words[i] + "\u201d"
        if self.chance(0.06):
            words.insert(self.n(1, len(words)), "(" + self.en_word() + ")")
        if self.chance(0.05):
            words.insert(self.n(1, len(words)), "\u2014")
        if self.chance(0.05):
            words.insert(self.n(1, len(words)), str(self.n(0, 99999)))
        return " ".join(words) + self.pick([".", ".", ".", ".", "?", "!",
                                            "\u2026", ":", ";"])

    def en_block(self):
        out = []
        if self.chance(0.3):
            out.append("#" * self.n(1, 3) + " " + self.en_sentence()[:-1]
                       + "\n\n")
        for _ in range(self.n(1, 5)):
            if self.chance(0.15):
                for i in range(self.n(2, 6)):
                    bullet = (str(i + 1) + ".") if self.chance(0.5) else "-"
                    out.append(bullet + " " + self.en_sentence() + "\n")
                out.append("\n")
                continue
            para = " ".join(self.en_sentence() for _ in range(self.n(1, 7)))
            out.append(para + "\n\n")
        return "".join(out)

    # ---- Code ----------------------------------------------------------

    def ident(self, style=None):
        parts = [self.zpick(CODE_PARTS) for _ in range(self.n(1, 3))]
        style = style or self.pick(["snake", "snake", "camel", "pascal",
                                    "upper"])
        if style == "snake":
            return "_".join(parts)
        if style == "camel":
            return parts[0] + "".join(p.capitalize() for p in parts[1:])
        if style == "pascal":
            return "".join(p.capitalize() for p in parts)
        return "_".join(parts).upper()

    def expr(self):
        a = self.ident("snake")
        x = self.r()
        if x < 0.3:
            return a + " " + self.pick(["+", "-", "*", "<<", "&", "|", "^",
                                        "/", "%"]) + " " + str(self.n(0, 4096))
        if x < 0.5:
            return a + "->" + self.ident("snake")
        if x < 0.7:
            return a + "[" + self.ident("snake") + " + " + \
                str(self.n(1, 9)) + "]"
        if x < 0.85:
            return self.ident("snake") + "(" + a + ", " + \
                str(self.n(0, 255)) + ")"
        return "0x%0*X" % (self.pick([2, 4, 8]), self.n(0, 0xFFFFFFF))

    def c_block(self):
        fn = "hm_" + self.ident("snake")
        args = ", ".join(self.pick(C_TYPES) + ("" if self.pick(C_TYPES)[-1]
                                               == "*" else " ")
                         + self.ident("snake").lower()
                         for _ in range(self.n(1, 4)))
        args = args.replace("* ", "*")
        out = []
        if self.chance(0.5):
            out.append("/*\n * " + self.en_sentence() + "\n * "
                       + self.en_sentence() + "\n */\n")
        out.append(self.pick(["static ", "", "static inline "])
                   + self.pick(C_TYPES) + "\n" + fn + "(" + args + ")\n{\n")
        for _ in range(self.n(1, 3)):
            out.append("\t" + self.pick(C_TYPES) + " " + self.ident("snake")
                       + " = " + self.expr() + ";\n")
        out.append("\n")
        for _ in range(self.n(1, 6)):
            x = self.r()
            v = self.ident("snake")
            if x < 0.3:
                out.append("\tfor (i = 0; i < %s; i++) {\n\t\tif (%s[i] == "
                           "'%s')\n\t\t\t%s++;\n\t}\n"
                           % (self.expr(), v, self.pick(["\\n", "\\t", "a",
                                                         "{", "\\0"]),
                              self.ident("snake")))
            elif x < 0.5:
                out.append("\tif (%s == NULL) {\n\t\terrno = %s;\n\t\treturn "
                           "-1;\n\t}\n" % (v, self.pick(["ENOMEM", "EINVAL",
                                                         "ERANGE"])))
            elif x < 0.7:
                out.append("\t%s = %s;\t/* %s */\n"
                           % (v, self.expr(), self.en_sentence()))
            elif x < 0.85:
                out.append('\tfprintf(stderr, "%s: %%s: %%zu\\n", %s, %s);\n'
                           % (self.ident("snake"), v, self.ident("snake")))
            else:
                out.append("\tswitch (%s) {\n" % v)
                for _ in range(self.n(2, 4)):
                    out.append("\tcase %s:\n\t\t%s += %d;\n\t\tbreak;\n"
                               % (self.ident("upper"), self.ident("snake"),
                                  self.n(1, 64)))
                out.append("\tdefault:\n\t\tabort();\n\t}\n")
        out.append("\treturn %s;\n}\n\n" % self.expr())
        return "".join(out)

    def py_block(self):
        out = []
        cls = self.chance(0.4)
        ind = "    " if cls else ""
        if cls:
            out.append("class %s(%s):\n    \"\"\"%s\"\"\"\n\n"
                       % (self.ident("pascal"), self.pick(["object",
                                                           "Exception",
                                                           "dict", "Base"]),
                          self.en_sentence()))
        for _ in range(self.n(1, 3)):
            args = ", ".join(self.ident("snake") for _ in range(self.n(0, 3)))
            if cls:
                args = "self" + (", " + args if args else "")
            out.append("%sdef %s(%s):\n" % (ind, self.ident("snake"), args))
            if self.chance(0.5):
                out.append('%s    """%s"""\n' % (ind, self.en_sentence()))
            for _ in range(self.n(1, 6)):
                x = self.r()
                v = self.ident("snake")
                if x < 0.25:
                    out.append("%s    %s = {%r: %d, %r: [%s]}\n"
                               % (ind, v, self.ident("snake"), self.n(0, 999),
                                  self.ident("snake"),
                                  ", ".join(str(self.n(0, 99))
                                            for _ in range(self.n(0, 6)))))
                elif x < 0.45:
                    out.append("%s    for %s in range(%d):\n%s        "
                               "%s.append(f\"{%s!r:>%d} {%s}\")\n"
                               % (ind, v, self.n(1, 500), ind,
                                  self.ident("snake"), v, self.n(2, 12),
                                  self.ident("snake")))
                elif x < 0.6:
                    out.append("%s    if not %s:\n%s        raise "
                               "ValueError(%r)\n"
                               % (ind, v, ind, self.en_sentence()))
                elif x < 0.8:
                    out.append("%s    %s = %s  # %s\n"
                               % (ind, v, self.expr().replace("->", "."),
                                  self.en_sentence()))
                else:
                    out.append("%s    return [%s for %s in %s if %s]\n"
                               % (ind, v, v, self.ident("snake"), v))
            out.append("\n")
        return "".join(out)

    def js_block(self):
        out = []
        name = self.ident("camel")
        params = ", ".join(self.ident("camel") for _ in range(self.n(0, 3)))
        out.append("export %sfunction %s(%s) {\n"
                   % (self.pick(["async ", "", ""]), name, params))
        for _ in range(self.n(1, 6)):
            x = self.r()
            v = self.ident("camel")
            if x < 0.25:
                out.append("  const %s = await fetch(`/api/v%d/${%s}?limit="
                           "%d`);\n" % (v, self.n(1, 3), self.ident("camel"),
                                        self.n(1, 100)))
            elif x < 0.45:
                out.append("  const %s = %s.map((x) => x.%s ?? %d)"
                           ".filter(Boolean);\n"
                           % (v, self.ident("camel"), self.ident("camel"),
                              self.n(0, 9)))
            elif x < 0.6:
                out.append("  if (%s === null || %s.length > %d) {\n    "
                           "throw new Error('%s');\n  }\n"
                           % (v, v, self.n(1, 1 << 16),
                              self.en_sentence().replace("'", "\\'")))
            elif x < 0.8:
                out.append("  let %s = { %s: %s, %s: \"%s\" }; // %s\n"
                           % (v, self.ident("camel"), self.n(0, 1 << 20),
                              self.ident("camel"), self.ident("snake"),
                              self.en_sentence()))
            else:
                out.append("  console.log(`%s: ${%s}`, %s <= %d);\n"
                           % (self.ident("camel"), v, v, self.n(0, 999)))
        out.append("  return %s;\n}\n\n" % self.ident("camel"))
        return "".join(out)

    def json_block(self):
        def val(depth):
            x = self.r()
            if depth < 2 and x < 0.2:
                return "{" + ", ".join('"%s": %s' % (self.ident("snake"),
                                                     val(depth + 1))
                                       for _ in range(self.n(1, 4))) + "}"
            if depth < 2 and x < 0.35:
                return "[" + ", ".join(val(depth + 1)
                                       for _ in range(self.n(0, 5))) + "]"
            if x < 0.6:
                return '"%s"' % self.en_sentence().replace('"', "")
            if x < 0.8:
                return str(self.n(-100000, 100000))
            if x < 0.9:
                return "%.6f" % (self.r() * 1000)
            return self.pick(["true", "false", "null"])
        lines = ["{"]
        n = self.n(2, 8)
        for i in range(n):
            lines.append('  "%s": %s%s' % (self.ident("snake"), val(0),
                                           "," if i < n - 1 else ""))
        lines.append("}\n")
        return "\n".join(lines)

    def code_block(self):
        x = self.r()
        if x < 0.35:
            b = self.c_block()
        elif x < 0.65:
            b = self.py_block()
        elif x < 0.9:
            b = self.js_block()
        else:
            b = self.json_block()
        if self.chance(0.2):
            b = "```\n" + b + "```\n\n"
        if self.chance(0.02):
            # Literal special-token text must stay ordinary under
            # --no-special / encode_ordinary.
            b += self.pick(["<|start|>", "<|end|>", "<|endoftext|>",
                            "<|message|>", "<|reserved_200100|>"]) + "\n"
        return b

    # ---- Numbers -------------------------------------------------------

    def num_block(self):
        x = self.r()
        out = []
        if x < 0.3:
            cols = self.n(3, 7)
            out.append(",".join(self.ident("snake") for _ in range(cols))
                       + "\n")
            for _ in range(self.n(5, 30)):
                row = []
                for _ in range(cols):
                    y = self.r()
                    if y < 0.4:
                        row.append(str(self.n(0, 10 ** self.n(1, 9))))
                    elif y < 0.7:
                        row.append("%.*f" % (self.n(1, 6),
                                             (self.r() - 0.3) * 10 ** self.n(
                                                 0, 6)))
                    elif y < 0.85:
                        row.append("%d%%" % self.n(0, 100))
                    else:
                        row.append("$%s.%02d" % ("{:,}".format(
                            self.n(0, 10 ** 7)), self.n(0, 99)))
                out.append(",".join(row) + "\n")
        elif x < 0.6:
            for _ in range(self.n(5, 30)):
                out.append("2%03d-%02d-%02dT%02d:%02d:%02d.%03dZ %s "
                           "%d.%d.%d.%d:%d pid=%d %s %.3fms\n"
                           % (self.n(0, 30), self.n(1, 12), self.n(1, 28),
                              self.n(0, 23), self.n(0, 59), self.n(0, 59),
                              self.n(0, 999),
                              self.pick(["INFO", "WARN", "ERROR", "DEBUG"]),
                              self.n(1, 254), self.n(0, 255), self.n(0, 255),
                              self.n(1, 254), self.n(1024, 65535),
                              self.n(1, 99999), self.ident("snake"),
                              self.r() * 300))
        elif x < 0.8:
            # Column-aligned table: digits and runs of spaces.
            for _ in range(self.n(5, 20)):
                out.append("".join(str(self.n(0, 10 ** self.n(0, 7))).rjust(
                    self.n(6, 14)) for _ in range(self.n(3, 8))) + "\n")
        else:
            for _ in range(self.n(3, 12)):
                out.append("v%d.%d.%d  0x%08x  %s  +%d (%d) %03d-%04d  "
                           "%de-%d  %d/%d  1,%03d,%03d\n"
                           % (self.n(0, 9), self.n(0, 30), self.n(0, 99),
                              self.n(0, 0xFFFFFFFF),
                              "".join("%02x" % self.n(0, 255)
                                      for _ in range(self.n(4, 20))),
                              self.n(1, 99), self.n(100, 999), self.n(0, 999),
                              self.n(0, 9999), self.n(1, 9), self.n(1, 30),
                              self.n(1, 31), self.n(1, 12), self.n(0, 999),
                              self.n(0, 999)))
        return "".join(out) + "\n"

    # ---- Other scripts -------------------------------------------------

    def spaced_text(self, words, syl, punct, lo=5, hi=18, cap=False):
        """Sentences of space-separated words from a list or from syllables."""
        out = []
        for _ in range(self.n(2, 8)):
            ws = []
            for _ in range(self.n(lo, hi)):
                if syl is not None and self.chance(0.25):
                    ws.append(self.syllables(syl[0], syl[1], 1, 4))
                else:
                    ws.append(self.zpick(words))
            if cap:
                ws[0] = ws[0][:1].upper() + ws[0][1:]
            if self.chance(0.2):
                ws[self.n(0, len(ws) - 1)] += self.pick(punct[1:])
            out.append(" ".join(ws) + punct[0])
        return " ".join(out) + "\n\n"

    def cjk_text(self, words, chars, comma, stop, extra=None):
        out = []
        for _ in range(self.n(2, 8)):
            s = []
            for _ in range(self.n(4, 20)):
                y = self.r()
                if y < 0.4:
                    s.append(self.zpick(words))
                elif y < 0.8:
                    s.append("".join(self.pick(chars)
                                     for _ in range(self.n(1, 3))))
                elif extra is not None and y < 0.95:
                    s.append(extra())
                else:
                    s.append(self.pick([comma, comma, "（" + self.pick(chars)
                                        + "）", str(self.n(1, 2025)),
                                        "「" + self.zpick(words) + "」"]))
            out.append("".join(s) + stop)
        return "".join(out) + "\n\n"

    def kana(self):
        s = "".join(self.pick(KANA_H) for _ in range(self.n(1, 4)))
        if self.chance(0.2):
            s += self.pick(KANA_SMALL) + self.pick(KANA_H)
        return s + self.pick(JA_PARTICLES)

    def hangul_word(self):
        lead = [0, 2, 3, 5, 6, 7, 9, 11, 12, 14, 15, 16, 17, 18]
        return "".join(chr(0xAC00 + (self.pick(lead) * 21 + self.n(0, 20))
                           * 28 + self.pick([0, 0, 0, 4, 8, 16, 17, 21]))
                       for _ in range(self.n(1, 4)))

    def ru_block(self):
        return self.spaced_text(RU, ("бвгджзклмнпрстфхцчшщ", "аеиоуыэюя"),
                                ".,?!", cap=True)

    def ar_block(self):
        return self.spaced_text(AR, ("بتثجحخدذرزسشصضطظعغفقكلمنهوي", "اوي"),
                                ".،؟؛")

    def hi_block(self):
        return self.spaced_text(HI, ("कखगघचजटडतथदधनपबभमयरलवशसह",
                                     ["ा", "ि", "ी", "ु", "े", "ो", "्",
                                      "ं", ""]), "।,?")

    def zh_block(self):
        return self.cjk_text(ZH_WORDS, HANZI, "，", "。")

    def ja_block(self):
        return self.cjk_text(JA_WORDS, HANZI, "、", "。", self.kana)

    def ko_block(self):
        out = []
        for _ in range(self.n(2, 8)):
            ws = [self.zpick(KO_WORDS) if self.chance(0.5)
                  else self.hangul_word() for _ in range(self.n(3, 12))]
            out.append(" ".join(ws) + self.pick([".", "?", "!"]))
        return " ".join(out) + "\n\n"

    def script_block(self):
        x = self.r()
        if x < 0.16:
            return self.ru_block()
        if x < 0.26:
            return self.spaced_text(EL, ("βγδζθκλμνξπρστφχψ",
                                         "αεηιουωάέήίόύώ"), ".,;", cap=True)
        if x < 0.36:
            return self.ar_block()
        if x < 0.43:
            return self.spaced_text(HE, ("בגדהוזחטכלמנסעפצקרשת", "אוי"),
                                    ".,?")
        if x < 0.53:
            return self.hi_block()
        if x < 0.68:
            return self.zh_block()
        if x < 0.78:
            return self.ja_block()
        if x < 0.85:
            return self.ko_block()
        if x < 0.9:
            out = []
            for _ in range(self.n(2, 8)):
                out.append("".join(self.zpick(TH_WORDS)
                                   for _ in range(self.n(2, 8))))
            return " ".join(out) + "\n\n"
        # Accented Latin, with some decomposed accents (combining marks).
        ws = []
        for _ in range(self.n(10, 60)):
            w = self.zpick(LATIN_X) if self.chance(0.4) else self.en_word()
            if self.chance(0.05):
                w = w + "e\u0301"
            ws.append(w)
        return " ".join(ws) + ".\n\n"

    # ---- Emoji, whitespace, long runs ----------------------------------

    def emoji_block(self):
        ws = []
        for _ in range(self.n(10, 40)):
            if self.chance(0.3):
                ws.append("".join(self.pick(EMOJI)
                                  for _ in range(self.n(1, 3))))
            else:
                ws.append(self.en_word())
        return " ".join(ws) + "\n\n"

    def space_block(self):
        """Whitespace runs of every kind, trailing spaces, CRLF."""
        out = []
        for _ in range(self.n(4, 16)):
            y = self.r()
            if y < 0.3:
                out.append(" " * self.n(2, 40) + self.en_word())
            elif y < 0.5:
                out.append("\t" * self.n(1, 6) + self.en_word()
                           + " " * self.n(1, 8))
            elif y < 0.7:
                out.append(self.en_word() + self.pick(ODD_SPACES)
                           + self.en_word() + self.pick(ODD_SPACES)
                           * self.n(1, 3))
            elif y < 0.85:
                out.append(self.en_sentence() + "\r\n" * self.n(1, 3))
            else:
                out.append(" " * self.n(1, 5) + "\n" * self.n(1, 4)
                           + " " * self.n(0, 12))
            out.append("\n")
        return "".join(out) + "\n"

    def digits_block(self):
        return "".join(self.pick("0123456789")
                       for _ in range(self.n(100, 2000))) + "\n\n"

    def ruler_block(self):
        return (self.pick(["=", "-", "*", "#", "~", ".", "_"])
                * self.n(20, 2000) + "\n\n")

    def odd_block(self):
        x = self.r()
        if x < 0.35:
            return self.emoji_block()
        if x < 0.7:
            return self.space_block()
        if x < 0.85:
            alpha = ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789+/")
            n = self.n(200, 3000)
            blob = "".join(self.pick(alpha) for _ in range(n))
            return ("data:image/png;base64,"
                    + "\n".join(blob[i:i + 76] for i in range(0, n, 76))
                    + "==\n\n")
        if x < 0.93:
            return self.digits_block()
        return self.ruler_block()

    # ---- One kind of text, for the per-script rows of the bench ----------

    def cjk_block(self):
        """Chinese, Japanese and Korean, now and then an English line."""
        x = self.r()
        if x < 0.45:
            return self.zh_block()
        if x < 0.8:
            return self.ja_block()
        if x < 0.95:
            return self.ko_block()
        return self.en_block()

    def punct_block(self):
        """ASCII punctuation, digits and whitespace runs: tables, logs,
        rulers, long numbers, indentation."""
        x = self.r()
        if x < 0.4:
            return self.num_block()
        if x < 0.7:
            return self.space_block()
        if x < 0.85:
            return self.digits_block()
        return self.ruler_block()

    def block(self):
        x = self.r()
        # Weights chosen for the byte shares in the docstring (blocks of
        # different kinds have different mean sizes).
        if x < 0.21:
            return self.en_block()
        if x < 0.515:
            return self.code_block()
        if x < 0.568:
            return self.num_block()
        if x < 0.945:
            return self.script_block()
        return self.odd_block()


# --kind: the text each kind is made of (mixed: the whole corpus above).
KINDS = {
    "mixed": Gen.block,
    "english": Gen.en_block,
    "code": Gen.code_block,
    "cjk": Gen.cjk_block,
    "arabic": Gen.ar_block,
    "punct": Gen.punct_block,
    "cyrillic": Gen.ru_block,
    "indic": Gen.hi_block,
    "emoji": Gen.emoji_block,
}


def generate(size, seed, kind="mixed"):
    g = Gen(seed)
    make = KINDS[kind]
    parts, total = [], 0
    while total < size:
        b = make(g).encode("utf-8")
        parts.append(b)
        total += len(b)
    return b"".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="-",
                    help="output file (default: standard output)")
    ap.add_argument("--size", type=int, default=DEFAULT_SIZE,
                    help="minimum size in bytes (default %(default)s)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED,
                    help="generator seed (default %(default)s)")
    ap.add_argument("--kind", choices=sorted(KINDS), default="mixed",
                    help="one kind of text only (default: mixed, the whole "
                    "corpus)")
    a = ap.parse_args()
    data = generate(a.size, a.seed, a.kind)
    if a.output == "-":
        sys.stdout.buffer.write(data)
    else:
        tmp = a.output + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, a.output)


if __name__ == "__main__":
    main()
