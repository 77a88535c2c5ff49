// Ingredient lines written the way people type them and recipe sites print them: the quantity
// first. Written for these tests (not taken from any site). `scales` says whether the line holds
// a quantity a cook would expect to change with servings; `merges` whether the shopping list
// should be able to add it up with the same ingredient elsewhere (a range, "to taste" or an
// unknown unit cannot be).

export interface QuantityLine {
  line: string;
  scales: boolean;
  merges: boolean;
}

const both = (line: string): QuantityLine => ({ line, scales: true, merges: true });
const scalesOnly = (line: string): QuantityLine => ({ line, scales: true, merges: false });
const neither = (line: string): QuantityLine => ({ line, scales: false, merges: false });

export const QUANTITY_FIRST_LINES: QuantityLine[] = [
  both("2 eggs"),
  both("3 large eggs"),
  both("1 egg, beaten"),
  both("100 g cheese"),
  both("100g grated parmesan"),
  both("250g plain flour"),
  both("1 ½ cups flour"),
  both("1 1/2 cups whole milk"),
  both("½ cup sugar"),
  both("2 tbsp olive oil"),
  both("1 tsp salt"),
  both("1/4 tsp ground black pepper"),
  both("2 tablespoons butter, softened"),
  both("3 teaspoons baking powder"),
  both("1 kg potatoes, peeled"),
  both("500 ml chicken stock"),
  both("1 litre water"),
  both("1 lb ground beef"),
  both("8 oz cream cheese"),
  both("2 cloves garlic"),
  both("4 garlic cloves, minced"),
  both("1 onion, finely chopped"),
  both("2 medium carrots, diced"),
  both("a 400g tin of tomatoes"),
  both("2 x 400g tins chopped tomatoes"),
  both("1 (400g) can chickpeas, drained"),
  both("a pinch of salt"),
  both("a handful of basil leaves"),
  both("1 bunch coriander"),
  both("3 sprigs thyme"),
  both("2 bay leaves"),
  both("1 lemon, juiced"),
  both("4 chicken thighs"),
  both("200ml double cream"),
  both("1.5 kg pork shoulder"),
  both("0.5 tsp chilli flakes"),
  both("6 rashers bacon"),
  both("2 red peppers, sliced"),
  both("300g spaghetti"),
  both("1 cup (240ml) milk"),
  both("3 tbsp soy sauce"),
  both("1 tbsp honey"),
  both("2 slices bread"),
  both("1 small onion"),
  both("4 spring onions, thinly sliced"),
  both("150g frozen peas"),
  both("1 stick celery"),
  both("2 fillets salmon"),
  both("1 packet yeast"),
  both("1 jar pesto"),
  both("1 cup fresh spinach, packed"),
  both("1 tsp ground cumin"),
  both("2 tsp dried oregano"),
  scalesOnly("2-3 cloves garlic, crushed"),
  scalesOnly("1–2 tbsp sugar"),
  scalesOnly("4 to 6 potatoes"),
  neither("Salt and pepper"),
  neither("Salt, to taste"),
  neither("Juice of 1 lemon"),
  neither("a few basil leaves"),
  neither("Olive oil, for frying"),
  neither("Fresh parsley"),
];
