package prompts

import (
	"strings"
	"sync"
)

// stopwords are function words of English, Russian and Ukrainian, plus
// the filler of prompts to coding agents ("please", "можешь"), in the
// normalised form tokenize produces (lower case, е for ё, ' for
// apostrophes). Words under three letters never reach this table.
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, list := range []string{stopEN, stopRU, stopUK} {
		for _, w := range strings.Fields(list) {
			m[w] = true
		}
	}
	return m
})

const stopEN = `
about above after again against all also and any are aren't because been before being below
between both but can can't cannot could couldn't did didn't does doesn't doing don't down
during each few for from further had hadn't has hasn't have haven't having her here here's
hers herself him himself his how how's i'd i'll i'm i've into isn't it's its itself let's
more most mustn't myself nor not now off once only other ought our ours ourselves out over
own same shan't she she'd she'll she's should shouldn't some such than that that's the their
theirs them themselves then there there's these they they'd they'll they're they've this
those through too under until very was wasn't we'd we'll we're we've were weren't what
what's when when's where where's which while who who's whom why why's will with won't would
wouldn't you you'd you'll you're you've your yours yourself yourselves
please thanks thank just like also still really maybe okay yes yeah sure need want let make
get got use using used one two see look way thing things something anything everything
should could would might must shall may
`

const stopRU = `
без более бы был была были было быть вам вас весь во вот все всего всех вы где да даже для
до его ее если есть еще же за здесь из или им их как какая какой когда кто ли либо мне может
мой мы на над надо наш не него нее нет ни них но ну об однако он она они оно от очень по под
при про раз сам свое свой себе себя со так также такой там те тем то того тоже той только
том ты уже хотя чего чей чем что чтобы чье чья эта эти это этот эту меня мною нам нас тебя
тебе ему ей нею ними этого этой этих этим тот тех сейчас потом тут пока после перед между
через почему зачем отчего всё ещё очень можно нужно пожалуйста спасибо давай давайте можешь сделать
`

const stopUK = `
але без був була були було бути вам вас весь від вони воно все всі всього всіх для до його
її або якщо так також тут там теж тобі тебе тому той тільки ти уже вже хоча чого чим що щоб
цей ця це ці цього цієї цих цим цю мене мені нам нас над під при про раз сам свій себе собі
який яка яке які яких коли хто чи ось аби адже бо між через після перед поки зараз потім
чому навіщо нащо можна треба потрібно будь ласка дякую давай можеш зробити його нього неї них але ніж
`
