"""What the synthetic RecLLMSim files are made of: tasks, subsets, intents, rating aspects,
profile and questionnaire vocabularies (en, zh), task texts, and human_exp_V2's chat models and
phrases."""

from __future__ import annotations

FOLDER = "recllmsim"

LLM_TASKS = (
    "new travel planning",
    "preparing gifts",
    "recipe planning",
    "skills learning planning",
    "travel planning",
)
HUMAN_TASKS = ("礼物准备", "旅行规划", "菜谱规划", "技能学习规划")
SUBSETS = ("LLM_agent_user", "human_exp_V2", "real_human_user")
N_LLM_PER_TASK = 8
N_HUMAN_USERS = 4
N_HUMAN_PER_TASK = 2
N_V2_USERS = 3
V2_MAX_FILES_PER_TASK = 6  # upstream numbers a user's conversations of one task 0..5

LLM_INTENTS = {
    ("Planning", "规划"): 0.34,
    ("Others", "其他"): 0.28,
    ("Recommendation", "推荐"): 0.18,
    ("Search & Recommendation", "检索+推荐"): 0.14,
    ("Search", "检索"): 0.06,
}
HUMAN_INTENTS = {"推荐": 0.44, "规划": 0.38, "评估": 0.13, "其它": 0.05}
HUMAN_HALLUCINATION = {"否": 0.9, "是": 0.05, "无法判断": 0.05}

RATING_ASPECTS = {
    "Preference Alignment": {0: 0.01, 1: 0.49, 2: 0.5},
    "Additional Preferences": {0: 0.75, 1: 0.25},
    "Role-Playing Completeness": {0: 0.13, 1: 0.16, 2: 0.71},
    "Memorization": {0: 0.04, 1: 0.96},
    "Detail Level": {0: 0.02, 1: 0.1, 2: 0.88},
    "Practical Usefulness": {0: 0.01, 1: 0.16, 2: 0.83},
    "Diversity": {0: 0.13, 1: 0.13, 2: 0.74},
}

# profile_mapped vocabularies: (en, zh)
PROFILE_VOCAB: dict[str, tuple[tuple[str, str], ...]] = {
    "Personality": (
        ("Determined", "坚定"),
        ("Independent", "独立"),
        ("Friendly", "友善"),
        ("Patient", "耐心"),
        ("Ambitious", "上进"),
        ("Confident", "自信"),
        ("Extroverted", "外向"),
        ("Optimistic", "乐观"),
        ("Meticulous", "细致"),
        ("Humorous", "幽默"),
        ("Calm", "冷静"),
        ("Others", "其他"),
    ),
    "Occupation": (
        ("Artist", "艺术工作者"),
        ("Student", "学生"),
        ("Engineer", "工程师"),
        ("Medical staff", "医护人员"),
        ("Educators", "教师"),
        ("Others", "其他"),
    ),
    "Daily Interests and Hobbies": (
        ("Sports", "运动"),
        ("Reading", "阅读"),
        ("Painting", "绘画"),
        ("Writing", "写作"),
        ("Gaming", "玩游戏"),
        ("Listening to music", "听音乐"),
        ("Crafting", "手工艺制作"),
        ("Photography", "摄影"),
        ("Others", "其他"),
    ),
    "Travel Habits": (
        ("Frequently travels for work", "经常出差"),
        ("Cultural trips", "文化旅行"),
        ("Self-driving tour", "自驾游"),
        ("Nature-based destinations", "自然风光"),
        ("Prefers calm and serene locations", "喜欢宁静"),
        ("Visiting family", "探亲"),
        ("International travel", "国际旅行"),
        ("Others", "其他"),
    ),
    "Dining Preferences": (
        ("Loves trying new cuisines", "尝鲜"),
        ("Fast food", "快餐"),
        ("Street food", "街头小吃"),
        ("Vegan", "素食"),
        ("Healthy food", "健康饮食"),
        ("Japanese cuisine", "日料"),
        ("Seafood", "海鲜"),
        ("Baking", "烘焙"),
        ("Others", "其他"),
    ),
    "Spending Habits": (
        ("Spends on fashion", "时尚支出"),
        ("Spends on entertainment", "娱乐支出"),
        ("Saves for future", "为未来储蓄"),
        ("Spends on tech gadgets", "科技产品"),
        ("Spends on books", "购买书籍"),
        ("High spender", "高消费"),
        ("Invests in art pieces", "投资艺术品"),
        ("Others", "其他"),
    ),
    "Other Aspects": (
        ("Living in a rented house", "租房"),
        ("Active in volunteer activities", "喜欢参与志愿活动"),
        ("Active in academic activities", "喜欢参与学术活动"),
        ("Living in a dormitory", "住在宿舍"),
        ("Has a large social circle", "社交广泛"),
        ("High life pressure", "生活压力大"),
        ("Others", "其他"),
    ),
}
HUMAN_PROFILE_KEYS = {
    "personality": "Personality",
    "occupation": "Occupation",
    "daily_interests": "Daily Interests and Hobbies",
    "travel_habits": "Travel Habits",
    "dining_preferences": "Dining Preferences",
    "spending_habits": "Spending Habits",
    "other_aspects": "Other Aspects",
}

QUESTIONNAIRE = (
    ("Memorization", "对话中对方是否忘记了前面提到过的内容", ("否", "是"), (0.9, 0.1)),
    (
        "Detail",
        "整体来看，对方对每个选项的介绍是否足够详细",
        ("详细", "一般", "简略"),
        (0.6, 0.36, 0.04),
    ),
    (
        "Availability",
        "整体来看，对方的回答对你解决真实问题有多大帮助",
        ("很有用", "有一定参考", "不可用"),
        (0.44, 0.52, 0.04),
    ),
    ("Diversity", "请给对方回答的多样性打分", ("结果多样", "一般", "结果单一"), (0.57, 0.37, 0.06)),
)

STRATEGY = {
    "information_request": {"Planning": 0.9, "Sequential": 0.1},
    "order": {"Comprehensive": 0.9, "Breadth": 0.05, "Depth": 0.05},
    "context": {"Low": 0.55, "High": 0.45},
    "question": {"Specific": 0.75, "Broad": 0.25},
}
STRATEGY_V2 = {
    "order": {"BreadthDepth": 0.8, "Breadth": 0.14, "DepthBreadth": 0.05, "Depth": 0.01},
    "feedback": {"Positive": 0.95, "Both": 0.03, "NoFeedback": 0.015, "Negative": 0.005},
}
STRATEGY_V3 = {
    "question_broadness": {4: 0.53, 3: 0.4, 2: 0.055, 5: 0.01, 1: 0.005},
    "context_dependency": {3: 0.78, 4: 0.15, 2: 0.04, 5: 0.02, 1: 0.01},
    "feedback": {"Positive": 0.97, "Both": 0.01, "NoFeedback": 0.015, "Negative": 0.005},
}

# Task texts (en, zh) with placeholders.
OCCASIONS = (
    ("Teacher's Day", "教师节"),
    ("a birthday", "生日"),
    ("the Spring Festival", "春节"),
    ("a wedding anniversary", "结婚纪念日"),
    ("graduation", "毕业"),
)
RECIPIENTS = (
    ("teacher", "老师"),
    ("mother", "母亲"),
    ("best friend", "好朋友"),
    ("grandfather", "爷爷"),
    ("colleague", "同事"),
)
PLACES = (
    ("Yunnan", "云南"),
    ("Japan", "日本"),
    ("Iceland", "冰岛"),
    ("Xi'an", "西安"),
    ("the Swiss Alps", "瑞士阿尔卑斯山"),
    ("Hainan", "海南"),
    ("Portugal", "葡萄牙"),
)
SEASONS = (("spring", "春天"), ("summer", "夏天"), ("autumn", "秋天"), ("winter", "冬天"))
MEALS = (
    ("a family dinner", "家庭晚餐"),
    ("a week of lunches", "一周的午餐"),
    ("a birthday party menu", "生日聚会菜单"),
    ("healthy breakfasts", "健康早餐"),
)
SKILLS = (
    ("photography", "摄影"),
    ("Python programming", "Python编程"),
    ("guitar", "吉他"),
    ("swimming", "游泳"),
    ("public speaking", "公开演讲"),
    ("Japanese", "日语"),
)
TASK_ITEMS = {
    "gift": (
        ("a handwritten card", "手写贺卡"),
        ("a scented candle set", "香薰蜡烛套装"),
        ("a leather notebook", "皮面笔记本"),
        ("a tea gift box", "茶叶礼盒"),
        ("a photo album", "相册"),
        ("a desk plant", "桌面绿植"),
        ("a thermos cup", "保温杯"),
    ),
    "travel": (
        ("a city walking tour", "城市徒步游"),
        ("a local guesthouse", "当地民宿"),
        ("a high-speed train ticket", "高铁票"),
        ("a day at the museum", "博物馆一日游"),
        ("a night market visit", "夜市之行"),
        ("a lakeside hotel", "湖边酒店"),
    ),
    "recipe": (
        ("a steamed fish dish", "清蒸鱼"),
        ("a vegetable soup", "蔬菜汤"),
        ("a tomato egg stir-fry", "番茄炒蛋"),
        ("a fruit salad", "水果沙拉"),
        ("braised tofu", "红烧豆腐"),
        ("a mushroom risotto", "蘑菇烩饭"),
    ),
    "skill": (
        ("an online course", "网课"),
        ("a practice schedule", "练习计划表"),
        ("a beginner's textbook", "入门教材"),
        ("a weekend workshop", "周末工作坊"),
        ("a study group", "学习小组"),
        ("a one-on-one tutor", "一对一辅导"),
    ),
}
TASK_KIND = {
    "preparing gifts": "gift",
    "travel planning": "travel",
    "new travel planning": "travel",
    "recipe planning": "recipe",
    "skills learning planning": "skill",
    "礼物准备": "gift",
    "旅行规划": "travel",
    "菜谱规划": "recipe",
    "技能学习规划": "skill",
}
QUALITIES = (
    ("practical", "实用"),
    ("thoughtful", "贴心"),
    ("popular", "受欢迎"),
    ("simple", "简单"),
)


HUMAN_USER_TEXT = (
    "我想{x}，预算在{n}元以内，请给我一些建议。",
    "不要{y}，请换成其他类别的具体建议。",
    "{y}听起来不错，能再详细介绍一下吗？",
    "请帮我把以上内容整理成一个完整的计划。",
    "第{k}天的安排能再轻松一点吗？",
    "谢谢，这个方案可以。",
)
HUMAN_TASK_GOAL = {
    "礼物准备": "给家人准备一份礼物",
    "旅行规划": "规划一次旅行",
    "菜谱规划": "安排一周的菜谱",
    "技能学习规划": "学习一项新技能",
}


CHAT_MODELS = {
    "gpt-4-turbo-preview": 0.29,
    "gemini-2.0-pro-exp-02-05": 0.27,
    "claude-3-7-sonnet-20250219": 0.25,
    "deepseek-v3": 0.19,
}
V2_HALLUCINATION = {"否": 0.93, "无法判断": 0.04, "是": 0.03}
V2_SATISFACTION_FIRST = {"5": 0.38, "4": 0.40, "3": 0.15, "2": 0.05, "1": 0.02}
V2_SATISFACTION_LATER = {"5": 0.48, "4": 0.38, "3": 0.09, "2": 0.03, "1": 0.02}
V2_REASONS = {"不够细致": 0.37, "不满足需求": 0.24, "不够多样": 0.17, "不可用": 0.15, "其它": 0.07}
V2_QUESTIONNAIRE_WEIGHTS = {
    "Memorization": (0.93, 0.07),
    "Detail": (0.69, 0.28, 0.03),
    "Availability": (0.62, 0.37, 0.01),
    "Diversity": (0.71, 0.26, 0.03),
}
V2_STRATEGY = {
    "information_request": {"Planning": 0.54, "Sequential": 0.46},
    "order": {"Comprehensive": 0.77, "Depth": 0.17, "Breadth": 0.06},
    "context": {"High": 0.67, "Low": 0.33},
    "question": {"Specific": 0.89, "Broad": 0.11},
}
V2_STRATEGY_V3 = {
    "question_broadness": {4: 0.61, 3: 0.29, 5: 0.05, 2: 0.04, 1: 0.01},
    "context_dependency": {3: 0.53, 4: 0.33, 5: 0.08, 2: 0.05, 1: 0.01},
    "feedback": {"NoFeedback": 0.55, "Positive": 0.28, "Both": 0.1, "Negative": 0.07},
}
V2_PROFILE_VOCAB = {
    "personality": (
        "乐观", "友善", "细致", "随性", "幽默", "耐心", "独立", "上进", "内向", "坚定", "冷静",
        "外向", "自信",
    ),
    "daily_interests": (
        "听音乐", "玩游戏", "看电视", "运动", "阅读", "网购", "摄影", "养宠物", "烘焙/烹饪",
        "手工艺制作", "绘画", "下棋", "写作",
    ),
    "travel_habits": (
        "自然风光", "美食之旅", "户外活动", "参观博物馆", "喜欢宁静", "文化旅行", "自驾游",
        "家庭旅行", "国际旅行", "经常出差", "探亲",
    ),
    "dining_preferences": (
        "烧烤", "中式美食", "街头小吃", "均衡饮食", "健康饮食", "海鲜", "快餐", "尝鲜", "外卖",
        "烘焙", "日式美食", "素食",
    ),
    "spending_habits": (
        "注重消费体验", "娱乐支出", "用于旅行", "质量大于数量", "节俭", "为未来储蓄", "时尚支出",
        "科技产品", "购买书籍",
    ),
    "other_aspects": (
        "住在宿舍", "喜欢参与音乐活动", "养小动物", "喜欢参与体育活动", "社交广泛",
        "喜欢参与志愿活动", "独自生活", "家庭生活", "生活压力大", "租房", "无符合描述",
    ),
}  # fmt: skip
V2_LIST_SIZES = {
    "personality": {3: 0.42, 4: 0.42, 2: 0.1, 5: 0.04, 1: 0.02},
    "daily_interests": {3: 0.47, 4: 0.31, 2: 0.18, 5: 0.04},
    "travel_habits": {3: 0.41, 4: 0.36, 2: 0.2, 5: 0.03},
    "dining_preferences": {3: 0.44, 4: 0.34, 2: 0.2, 5: 0.02},
    "spending_habits": {3: 0.43, 4: 0.28, 2: 0.24, 1: 0.03, 0: 0.01, 5: 0.01},
    "other_aspects": {2: 0.41, 3: 0.26, 4: 0.21, 1: 0.11, 5: 0.01},
}
V2_BACKGROUNDS = {
    "信息科学与技术": 0.28,
    "工程与应用科学": 0.19,
    "医学与健康科学": 0.14,
    "其他": 0.12,
    "人文与艺术": 0.09,
    "自然科学": 0.08,
    "社会科学与行为科学": 0.06,
    "交叉与前沿学科": 0.04,
}
V2_OCCUPATIONS = {
    "学生": 0.81,
    "其他": 0.05,
    "工程师": 0.04,
    "艺术工作者": 0.03,
    "医护人员": 0.03,
    "教师": 0.02,
    "自媒体工作者": 0.02,
}
COMPANIONS = ("朋友", "家人", "室友", "同学", "父母")
V2_USER_TEXT = {
    "gift": (
        "{o}快到了，我想给{w}送一份礼物，预算{n}元左右，有什么推荐吗",
        "{y}不错，还有类似的选择吗",
        "{w}平时比较喜欢安静，{y}合适吗",
        "能帮我比较一下这几个礼物的优缺点吗",
        "在哪里买比较方便？",
    ),
    "travel": (
        "我打算{s}去{p}玩{k}天，帮我做个行程规划",
        "住宿想要{y}，有推荐吗",
        "第{k}天的安排太赶了，能调整一下吗",
        "交通方面怎么安排比较省时间",
        "帮我把完整的行程整理一下",
    ),
    "recipe": (
        "我想给{k}个人做{m}，帮我推荐几道菜",
        "{y}的具体做法是什么",
        "换一道清淡一点的菜吧",
        "需要提前准备哪些食材？",
        "帮我安排一下做菜的先后顺序",
    ),
    "skill": (
        "我想在{k}个月内学会{sk}，目前零基础，怎么规划比较好",
        "有没有适合初学者的{y}推荐",
        "我每天只有一个小时，这个进度能完成吗",
        "第一个月具体每周学什么",
        "谢谢，这个计划很清楚",
    ),
}
V2_SECTION_TITLES = ("整体思路", "具体推荐", "时间安排", "预算参考", "注意事项")
V2_TIPS = (
    "提前确认时间和预算，避免临时调整",
    "可以根据自己的实际情况灵活取舍",
    "建议先从最简单的一项开始尝试",
    "遇到高峰期记得预留充足时间",
    "保留一到两个备选方案",
)
