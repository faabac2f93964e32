CREATE TABLE "equipment_cost_inputs" (
	"equipment_id" uuid PRIMARY KEY NOT NULL,
	"pto_power_kw" double precision,
	"cost" jsonb
);
--> statement-breakpoint
ALTER TABLE "equipment_cost_inputs" ADD CONSTRAINT "equipment_cost_inputs_equipment_id_equipment_id_fk" FOREIGN KEY ("equipment_id") REFERENCES "public"."equipment"("id") ON DELETE cascade ON UPDATE no action;